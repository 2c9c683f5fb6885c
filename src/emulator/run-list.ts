/**
 * Selection of a list page: filtering and keyset paging over run records, in the requested order
 * (newest first unless `sort_by`/`sort_order` say otherwise).
 */
import type { CursorPosition } from './cursor.js';
import type { RunFilter } from './query.js';
import { DEFAULT_LIMIT } from './query.js';
import { DEFAULT_ORDER, comparePositions, positionOf } from './run-order.js';
import type { RunRecord } from './run-record.js';

function contains(text: string | undefined, needle: string): boolean {
  return text !== undefined && text.toLowerCase().includes(needle);
}

function matches(record: RunRecord, filter: Partial<RunFilter>): boolean {
  if (filter.states && !filter.states.includes(record.state)) return false;
  if (filter.name !== undefined && record.agentConfig?.name !== filter.name) return false;
  if (filter.model_id !== undefined && record.agentConfig?.model_id !== filter.model_id) return false;
  if (filter.creator !== undefined && record.creatorUid !== filter.creator) return false;
  if (filter.visibleTo !== undefined && record.creatorUid !== filter.visibleTo) return false;
  if (filter.source !== undefined && record.source !== filter.source) return false;
  if (filter.createdAfter !== undefined && record.createdAt < filter.createdAfter) return false;
  if (filter.createdBefore !== undefined && record.createdAt >= filter.createdBefore) return false;
  if (filter.updatedAfter !== undefined && record.updatedAt <= filter.updatedAfter) return false;
  if (filter.environmentId !== undefined && record.agentConfig?.environment_id !== filter.environmentId) return false;
  if (filter.skill !== undefined && record.skillSpec !== filter.skill) return false;
  if (filter.scheduleId !== undefined && record.schedule?.schedule_id !== filter.scheduleId) return false;
  if (filter.artifactType !== undefined && !record.artifacts.some((a) => a.artifact_type === filter.artifactType)) return false;
  if (filter.q !== undefined) {
    const needle = filter.q.toLowerCase();
    if (!contains(record.title, needle) && !contains(record.prompt, needle) && !contains(record.skillSpec, needle)) return false;
  }
  return true;
}

/**
 * One page of matching records. Paging is by position (the last record of the previous page), so
 * runs created between two page requests never shift later pages: no duplicates, none missed. (A
 * run updated between pages of an `updated_at` order moves, as it would in the real service.)
 */
export function selectPage(records: Iterable<RunRecord>, filter: Partial<RunFilter>): { page: RunRecord[]; next?: CursorPosition } {
  const limit = filter.limit ?? DEFAULT_LIMIT;
  const { by, order } = filter.order ?? DEFAULT_ORDER;
  const after = filter.after;
  const matching = [...records]
    .filter((r) => matches(r, filter) && (!after || comparePositions(positionOf(r, by), after, order) > 0))
    .sort((a, b) => comparePositions(positionOf(a, by), positionOf(b, by), order));
  const page = matching.slice(0, limit);
  const last = page[page.length - 1];
  if (matching.length > limit && last) return { page, next: { by, order, ...positionOf(last, by) } };
  return { page };
}
