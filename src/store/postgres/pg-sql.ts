/**
 * Small helpers shared by the PostgreSQL repositories: named parameters (`@now`, as the SQLite
 * statements write them) turned into `$1…`, 64-bit integers read as numbers, and transactions on one
 * pooled client.
 */
import pg from 'pg';

/** A pool or one of its clients: anything that runs a query. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

export type Params = Record<string, unknown>;

/**
 * BIGINT (epoch ms, BIGSERIAL ids, COUNT) as a JavaScript number instead of pg's default string: every
 * value we store is far below 2^53. Set per pool, so other users of `pg` in the process are untouched.
 */
const int8 = 20;
export const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === int8
      ? (value: string) => Number(value)
      : (pg.types.getTypeParser(oid, format) as (value: string) => unknown)) as pg.CustomTypesConfig['getTypeParser'],
};

const cache = new Map<string, { text: string; names: string[] }>();

/** `@name` placeholders → `$n` (one number per distinct name), cached per statement text. */
function compile(sql: string): { text: string; names: string[] } {
  let compiled = cache.get(sql);
  if (!compiled) {
    const names: string[] = [];
    const text = sql.replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string) => {
      let index = names.indexOf(name);
      if (index < 0) index = names.push(name) - 1;
      return `$${index + 1}`;
    });
    compiled = { text, names };
    cache.set(sql, compiled);
  }
  return compiled;
}

/**
 * PostgreSQL text cannot hold U+0000, which SQLite stores and Slack or Linear text may carry: it
 * becomes U+FFFD, the same way in every statement, so a key still matches itself.
 */
export function bindable(value: unknown): unknown {
  return typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
}

/** Runs a statement written with `@name` parameters. */
export async function run<R extends pg.QueryResultRow = pg.QueryResultRow>(db: Queryable, sql: string, params: Params = {}): Promise<pg.QueryResult<R>> {
  const { text, names } = compile(sql);
  const values = names.map((name) => {
    if (!(name in params)) throw new Error(`statement parameter @${name} is missing`);
    return bindable(params[name]);
  });
  return (db as pg.Pool).query<R>(text, values);
}

/** The rows of a statement. */
export async function rows<R extends pg.QueryResultRow>(db: Queryable, sql: string, params: Params = {}): Promise<R[]> {
  return (await run<R>(db, sql, params)).rows;
}

/** The first row of a statement, if any. */
export async function row<R extends pg.QueryResultRow>(db: Queryable, sql: string, params: Params = {}): Promise<R | undefined> {
  return (await run<R>(db, sql, params)).rows[0];
}

/** How many rows the statement changed. */
export async function changes(db: Queryable, sql: string, params: Params = {}): Promise<number> {
  return (await run(db, sql, params)).rowCount ?? 0;
}

/**
 * Runs `work` in one transaction on one pooled client: committed when it returns, rolled back when it
 * throws or returns `{ rollback: value }` (a guarded write that found its guard false).
 */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T | Rollback<T>>): Promise<T> {
  const client = await pool.connect();
  let broken: unknown;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    if (result instanceof Rollback) {
      await client.query('ROLLBACK');
      return result.value;
    }
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      // The connection itself is gone: do not hand it to the next caller.
      broken = rollbackError;
    }
    throw error;
  } finally {
    client.release(broken instanceof Error ? broken : undefined);
  }
}

/** Returned from a transaction's work to roll it back and answer `value`. */
export class Rollback<T> {
  constructor(readonly value: T) {}
}

/** Strings bound inside an array: `bindable` as for a single value (U+0000 → U+FFFD), nulls kept. */
export const texts = (values: ReadonlyArray<string | null | undefined>): Array<string | null> =>
  values.map((value) => (value == null ? null : (bindable(value) as string)));
