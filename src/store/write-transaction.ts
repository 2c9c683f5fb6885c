import type Database from 'better-sqlite3';
import { SPAN } from '../core/ports/trace-names.js';
import { tracing, type SpanOptions } from '../core/ports/tracing.js';

/** better-sqlite3 has no instrumentation: our own span of a write transaction, inside the work that asked for it. */
const TRANSACTION_SPAN: SpanOptions = { kind: 'internal', attributes: { 'db.system.name': 'sqlite' } };

const runners = new WeakMap<Database.Database, (body: () => unknown) => unknown>();

/**
 * Runs `body` in a write transaction (BEGIN IMMEDIATE: the write lock first, so two processes never
 * deadlock upgrading a read lock) and returns what it returns; inside another transaction, in a
 * savepoint, as better-sqlite3 nests them. One transaction function per connection: better-sqlite3's
 * `db.transaction(fn)` builds four wrappers on every call, 2% of a worked trigger's CPU
 * (docs/benchmarks.md, "CPU per worked trigger"). Tracing on, it is a span of the work that asked for it
 * (none outside any span: a poll's transaction is no trace of its own); off, it costs one check.
 */
export function inWriteTransaction<T>(db: Database.Database, body: () => T): T {
  let run = runners.get(db);
  if (!run) {
    const transaction = db.transaction((inner: () => unknown) => inner());
    run = (body) => transaction.immediate(body);
    runners.set(db, run);
  }
  const traces = tracing();
  if (!traces.on || traces.active().traceparent === undefined) return run(body) as T;
  const runner = run;
  return traces.inSpanSync(SPAN.storeTransaction, TRANSACTION_SPAN, () => runner(body) as T);
}
