/**
 * Selection of a list page: filtering and keyset paging over run records, newest first.
 */
import type { CursorPosition } from './cursor.js';
import type { RunFilter } from './query.js';
import { DEFAULT_LIMIT } from './query.js';
import type { RunRecord } from './run-record.js';

/** Order of every list: created_at desc, then creation order desc, so ties are broken stably. */
export function newestFirst(a: RunRecord, b: RunRecord): number {
  return b.createdAt - a.createdAt || b.seq - a.seq;
}

function isAfter(record: RunRecord, position: CursorPosition): boolean {
  return record.createdAt < position.createdAt || (record.createdAt === position.createdAt && record.seq < position.seq);
}

function matches(record: RunRecord, filter: Partial<RunFilter>): boolean {
  if (filter.states && !filter.states.includes(record.state)) return false;
  if (filter.name !== undefined && record.agentConfig?.name !== filter.name) return false;
  if (filter.model_id !== undefined && record.agentConfig?.model_id !== filter.model_id) return false;
  if (filter.creator !== undefined && record.creatorUid !== filter.creator) return false;
  if (filter.source !== undefined && record.source !== filter.source) return false;
  if (filter.createdAfter !== undefined && record.createdAt < filter.createdAfter) return false;
  if (filter.createdBefore !== undefined && record.createdAt >= filter.createdBefore) return false;
  if (filter.updatedAfter !== undefined && record.updatedAt <= filter.updatedAfter) return false;
  return true;
}

/**
 * One page of matching records. Paging is by position (the last record of the previous page), so
 * runs created between two page requests never shift later pages: no duplicates, none missed.
 */
export function selectPage(
  records: Iterable<RunRecord>,
  filter: Partial<RunFilter>,
): { page: RunRecord[]; next?: CursorPosition } {
  const limit = filter.limit ?? DEFAULT_LIMIT;
  const after = filter.after;
  const matching = [...records]
    .filter((r) => matches(r, filter) && (!after || isAfter(r, after)))
    .sort(newestFirst);
  const page = matching.slice(0, limit);
  const last = page[page.length - 1];
  if (matching.length > limit && last) return { page, next: { createdAt: last.createdAt, seq: last.seq } };
  return { page };
}
