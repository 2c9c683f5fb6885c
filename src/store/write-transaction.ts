import type Database from 'better-sqlite3';

const runners = new WeakMap<Database.Database, (body: () => unknown) => unknown>();

/**
 * Runs `body` in a write transaction (BEGIN IMMEDIATE: the write lock first, so two processes never
 * deadlock upgrading a read lock) and returns what it returns; inside another transaction, in a
 * savepoint, as better-sqlite3 nests them. One transaction function per connection: better-sqlite3's
 * `db.transaction(fn)` builds four wrappers on every call, 2% of a worked trigger's CPU
 * (docs/benchmarks.md, "CPU per worked trigger").
 */
export function inWriteTransaction<T>(db: Database.Database, body: () => T): T {
  let run = runners.get(db);
  if (!run) {
    const transaction = db.transaction((inner: () => unknown) => inner());
    run = (body) => transaction.immediate(body);
    runners.set(db, run);
  }
  return run(body) as T;
}
