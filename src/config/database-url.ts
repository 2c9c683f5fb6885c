/**
 * `DATABASE_URL`: a `postgres://` or `postgresql://` connection URL selects the PostgreSQL store.
 * Checked here for its shape only (whether the server answers is checked when the store opens).
 * What we show of it — in problems, `config check` and log lines — names host, port and database
 * and never the password.
 */

import type { PostgresTarget } from '../config-kit/service-config.js';

export type { PostgresTarget };

export type DatabaseUrlCheck = { ok: true; target: PostgresTarget; password: string | undefined; masked: string } | { ok: false; message: string };

const SCHEMES = new Set(['postgres:', 'postgresql:']);
/** Query parameters that carry secrets (libpq's names). */
const SECRET_PARAMS = new Set(['password', 'sslpassword', 'sslkey']);
const MASK = '****';

/** Checks a `DATABASE_URL` value. Messages never contain the value's password. */
export function checkDatabaseUrl(text: string): DatabaseUrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: 'is not a URL — write postgres://user:password@host:5432/database' };
  }
  if (!SCHEMES.has(url.protocol)) {
    return {
      ok: false,
      message: `must be a postgres:// or postgresql:// URL, not ${url.protocol.replace(/:$/, '')}: — for SQLite, unset it and set DATABASE_PATH`,
    };
  }
  // A socket directory may be given as ?host=/run/postgresql instead of in the authority.
  const host = decodeURIComponent(url.hostname) || url.searchParams.get('host') || '';
  if (host === '') return { ok: false, message: 'names no host — write postgres://user:password@host:5432/database' };
  const user = decodeURIComponent(url.username);
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || user;
  if (database === '') return { ok: false, message: `names no database (${host}) — write postgres://user:password@host:5432/database` };
  const target = { host, port: url.port === '' ? 5432 : Number(url.port), database };
  const password = url.password === '' ? (url.searchParams.get('password') ?? undefined) : safeDecode(url.password);
  return { ok: true, target, password, masked: maskDatabaseUrl(text) };
}

/** The URL with its password (and any secret query parameter) replaced by `****`. */
export function maskDatabaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return MASK;
  }
  if (url.password !== '') url.password = MASK;
  for (const name of [...url.searchParams.keys()]) if (SECRET_PARAMS.has(name)) url.searchParams.set(name, MASK);
  return url.href.replaceAll(encodeURIComponent(MASK), MASK);
}

/** `db.example.com:5432/agent_bridge`: how a database is named in messages. */
export function describeTarget(target: PostgresTarget): string {
  return `${target.host}:${target.port}/${target.database}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
