import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ConsoleAccess } from './console-config.js';

/**
 * Sign-in, sessions and CSRF tokens of the console.
 *
 * Sessions are signed cookies (`<sid>.<expiry>.<who>.<mac>`), not rows written at every sign-in: every
 * replica signs with the same key, one only this service holds (`signing-key.ts`: from
 * `AGENT_BRIDGE_SECRET`, else generated once and kept in the database; random per process with the
 * one-time link alone), so a session works on all of them. `<who>` is `admin` for the admin token or
 * the one-time link, or the person a sign-in provider signed in (their person id, name, and whether
 * `console.admins` named them). Signing out ends the session on the server: its id is recorded in the
 * store (`ConsoleSessionRepository.end`) and every replica refuses the cookie from then on (the routes
 * check `isEnded` for every request that has a session).
 *
 * CSRF: every form carries `HMAC(key, "csrf:" + sid)`, which a page of another site cannot read; the
 * sign-in form (no session yet) carries one bound to a short-lived sign-in cookie instead.
 */

export const SESSION_COOKIE = 'agent_bridge_console';
export const SIGN_IN_COOKIE = 'agent_bridge_console_sign_in';
/** Marks a browser someone signed in from: its failed admin tokens count on their own (`sign-in.ts`). */
export const KNOWN_BROWSER_COOKIE = 'agent_bridge_console_known';
export const KNOWN_BROWSER_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** Someone a sign-in provider signed in: their person id (canonical: Slack's `U…` bare) and display name. */
export interface SignedInPerson {
  id: string;
  name: string;
}

export interface Session {
  sid: string;
  expiresAt: number;
  /** Set for a provider's sign-in; absent for the admin token and the one-time link. */
  person?: SignedInPerson;
  /** Sees and manages everything: the admin token, the one-time link, or a person `console.admins` names. */
  admin: boolean;
}

/** How long the state of a provider's sign-in in progress (state, nonce, PKCE verifier) stays usable. */
export const PENDING_TTL_MS = 10 * 60 * 1000;
const NAME_LIMIT = 100;

function encodeJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

function decodeJson(text: string): unknown {
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Equal strings, compared in constant time (their digests, so lengths leak nothing either). */
function sameText(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

export class ConsoleAuth {
  private readonly key: Buffer;
  private oneTimeCode: string | undefined;

  /** `key`: what `consoleSigningKey` gave for this configuration. */
  constructor(
    private readonly access: Exclude<ConsoleAccess, { mode: 'off' }>,
    key: Buffer,
  ) {
    this.key = key;
    if (access.mode === 'one-time link') this.oneTimeCode = randomBytes(24).toString('base64url');
  }

  /** The path of the one-time sign-in link (once; undefined when signing in takes the token). */
  oneTimePath(): string | undefined {
    return this.oneTimeCode ? `/console/sign-in?once=${this.oneTimeCode}` : undefined;
  }

  /** True once for the right code; the link is spent after that. */
  consumeOneTimeCode(code: string): boolean {
    if (!this.oneTimeCode || !sameText(code, this.oneTimeCode)) return false;
    this.oneTimeCode = undefined;
    return true;
  }

  /** True when `token` is the admin token (never true without one). */
  checkToken(token: string): boolean {
    return this.access.mode === 'token' && sameText(token, this.access.token);
  }

  private mac(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }

  /** A new session: the admin's (no person), or a person's a provider signed in. */
  newSession(now: number, person?: SignedInPerson): { cookie: string; session: Session } {
    const sid = randomBytes(16).toString('base64url');
    const expiresAt = now + SESSION_TTL_MS;
    const signedIn = person && { id: person.id, name: person.name.slice(0, NAME_LIMIT) };
    const admin = !signedIn || this.isAdmin(signedIn.id);
    const who = signedIn ? encodeJson({ p: signedIn.id, n: signedIn.name, a: admin ? 1 : 0 }) : 'admin';
    const body = `${sid}.${expiresAt}.${who}`;
    return { cookie: `${body}.${this.mac(`session:${body}`)}`, session: { sid, expiresAt, admin, ...(signedIn && { person: signedIn }) } };
  }

  /**
   * The session a cookie value stands for, if it is ours, intact and not expired. A person is an
   * admin only while `console.admins` still names them (a change of the list counts at once).
   */
  readSession(cookie: string | undefined, now: number): Session | undefined {
    const parts = cookie?.split('.');
    if (!parts || parts.length !== 4) return undefined;
    const [sid, expiry, who, mac] = parts as [string, string, string, string];
    if (!sameText(mac, this.mac(`session:${sid}.${expiry}.${who}`))) return undefined;
    const expiresAt = Number(expiry);
    if (!Number.isFinite(expiresAt) || expiresAt <= now) return undefined;
    if (who === 'admin') return { sid, expiresAt, admin: true };
    const data = decodeJson(who) as { p?: unknown; n?: unknown; a?: unknown } | undefined;
    if (typeof data?.p !== 'string' || typeof data.n !== 'string') return undefined;
    return { sid, expiresAt, person: { id: data.p, name: data.n }, admin: data.a === 1 && this.isAdmin(data.p) };
  }

  private isAdmin(personId: string): boolean {
    return this.access.admins.includes(personId);
  }

  /** The state of a provider's sign-in in progress, sealed for a short-lived cookie (read back by `openPending`). */
  sealPending<T extends object>(data: T, now: number): string {
    const body = `${encodeJson({ ...data, exp: now + PENDING_TTL_MS })}`;
    return `${body}.${this.mac(`pending:${body}`)}`;
  }

  /** What `sealPending` sealed, if the value is ours, intact and not expired. */
  openPending(value: string | undefined, now: number): Record<string, unknown> | undefined {
    const parts = value?.split('.');
    if (!parts || parts.length !== 2) return undefined;
    const [body, mac] = parts as [string, string];
    if (!sameText(mac, this.mac(`pending:${body}`))) return undefined;
    const data = decodeJson(body) as Record<string, unknown> | undefined;
    return data && typeof data['exp'] === 'number' && data['exp'] > now ? data : undefined;
  }

  csrfToken(sid: string): string {
    return this.mac(`csrf:${sid}`);
  }

  checkCsrf(sid: string, token: string | undefined): boolean {
    return token !== undefined && sameText(token, this.csrfToken(sid));
  }

  /** A new known-browser mark (`<id>.<expiry>.<mac>`), given at a sign-in. */
  newKnownBrowser(now: number): string {
    const body = `${randomBytes(16).toString('base64url')}.${now + KNOWN_BROWSER_TTL_MS}`;
    return `${body}.${this.mac(`known:${body}`)}`;
  }

  /** The id of a known-browser mark, if the value is ours, intact and not expired. */
  readKnownBrowser(value: string | undefined, now: number): string | undefined {
    const parts = value?.split('.');
    if (!parts || parts.length !== 3) return undefined;
    const [id, expiry, mac] = parts as [string, string, string];
    if (!sameText(mac, this.mac(`known:${id}.${expiry}`))) return undefined;
    const expiresAt = Number(expiry);
    return Number.isFinite(expiresAt) && expiresAt > now ? id : undefined;
  }

  /** A nonce for the sign-in cookie and the sign-in form's token bound to it. */
  newSignInNonce(): { nonce: string; token: string } {
    const nonce = randomBytes(16).toString('base64url');
    return { nonce, token: this.mac(`sign-in:${nonce}`) };
  }

  checkSignInToken(nonce: string | undefined, token: string | undefined): boolean {
    return nonce !== undefined && token !== undefined && sameText(token, this.mac(`sign-in:${nonce}`));
  }
}
