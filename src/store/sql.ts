/** Small conversions shared by the SQLite repositories: JSON as TEXT, booleans as 0/1. */
import { abandoned } from './process-statements.js';

/** JSON text for a column; `undefined` is stored as `null`. */
export function toJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/** The value of a JSON column (null stays null). */
export function fromJson(text: string | null): unknown {
  return text === null ? null : (JSON.parse(text) as unknown);
}

export function toFlag(value: boolean): 0 | 1 {
  return value ? 1 : 0;
}

/**
 * SQLite's count of a queue's rows by state that reads indexes only, the finished ones in state order:
 * through the partial index of finished rows (migration 16) and the partial index of the rest
 * (migration 3). A plain `GROUP BY state` would sort every row in a temporary b-tree.
 */
export function stateCountSql(table: 'outbox' | 'triggers'): string {
  const [finishedIndex, finished, openIndex, open] =
    table === 'outbox'
      ? ['outbox_finished', "'sent', 'failed'", 'outbox_unsent', "'pending', 'sending'"]
      : ['triggers_finished', "'done', 'failed', 'ignored'", 'triggers_unfinished', "'pending', 'working'"];
  return `SELECT state, COUNT(*) AS n FROM ${table} INDEXED BY ${finishedIndex} WHERE state IN (${finished}) GROUP BY state
    UNION ALL
    SELECT state, COUNT(*) AS n FROM ${table} INDEXED BY ${openIndex} WHERE state IN (${open}) GROUP BY state`;
}

/** Object with every state as key and 0 as value, filled from `GROUP BY state` rows. */
export function countStates<S extends string>(states: readonly S[], rows: ReadonlyArray<{ state: string; n: number }>): Record<S, number> {
  const counts = Object.fromEntries(states.map((s) => [s, 0])) as Record<S, number>;
  for (const row of rows) {
    if ((states as readonly string[]).includes(row.state)) counts[row.state as S] = row.n;
  }
  return counts;
}

/**
 * `SELECT` of outbox rows, optionally of one destination and/or state, in id order, with only the
 * conditions given: `(@destination IS NULL OR destination = @destination)` keeps both engines off
 * the `(destination, state, id)` index and scans the whole table.
 */
export function outboxListSql(options: { destination?: string; state?: string }): string {
  const clauses = [options.destination !== undefined && 'destination = @destination', options.state !== undefined && 'state = @state'].filter(Boolean);
  return `SELECT * FROM outbox${clauses.length > 0 ? ` WHERE ${clauses.join(' AND ')}` : ''} ORDER BY id`;
}

/** The parameters of `outboxListSql`: only those given (a named parameter the statement lacks is an error in better-sqlite3). */
export function compactParams(options: { destination?: string; state?: string }): Record<string, string> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

/**
 * The `more_due` column a claim returns (`Claimed.moreDue`): whether another row of `table` than the
 * one claimed is claimable and due — pending, or abandoned by its holder (`abandoned`). Abandoned rows
 * count: the work of a process that died is taken over by a chain of workers, each woken by the claim
 * before it, not one row per poll (8 triggers took 8 polls, 15 s, in the PostgreSQL survivor suite).
 * It walks the queue's partial index (migration 0003; `INDEXED BY` on SQLite, where `indexed` is true)
 * and stops at the first such row. SQLite answers 0/1, PostgreSQL a boolean: read it with `isMoreDue`.
 */
export function moreDueColumn(table: 'triggers' | 'outbox', indexed: boolean): string {
  const [index, working] = table === 'triggers' ? (['triggers_unfinished', 'working'] as const) : (['outbox_unsent', 'sending'] as const);
  return `EXISTS (
    SELECT 1 FROM ${table} AS waiting${indexed ? ` INDEXED BY ${index}` : ''}
    WHERE waiting.state IN ('pending', '${working}') AND (waiting.state = 'pending' OR ${abandoned('waiting', working)})
      AND waiting.next_attempt_at <= @now AND waiting.id <> ${table}.id
  ) AS more_due`;
}

export const isMoreDue = (row: { more_due?: unknown }): boolean => row.more_due === true || row.more_due === 1;
