/**
 * Orders of `GET /agent/runs` (`sort_by`, `sort_order`) as the run API's SDK declares them, and the
 * keys a page boundary is remembered by. Every order ends in creation order, so it is total and a
 * cursor position names exactly one place in it.
 */
import type { RunRecord } from './run-record.js';

export const SORT_FIELDS = ['updated_at', 'created_at', 'title', 'agent'] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export type SortOrder = 'asc' | 'desc';

export interface RunOrder {
  by: SortField;
  order: SortOrder;
}

/** Newest first, as the SDK documents the list (its source names `updated_at` as the default sort_by; the list’s own doc says creation time). */
export const DEFAULT_ORDER: RunOrder = { by: 'created_at', order: 'desc' };

/** Without `sort_order`: times newest first, names A to Z. */
export function defaultOrderFor(by: SortField): SortOrder {
  return by === 'title' || by === 'agent' ? 'asc' : 'desc';
}

/** A record's sort key: epoch ms for times, lower-cased text for names; `null` = no skill. */
export type SortKey = number | string | null;

/** Where a record stands in an order: its key, then its creation sequence. */
export interface OrderPosition {
  key: SortKey;
  seq: number;
}

export function sortKey(record: RunRecord, by: SortField): SortKey {
  switch (by) {
    case 'created_at':
      return record.createdAt;
    case 'updated_at':
      return record.updatedAt;
    case 'title':
      return record.title.toLowerCase();
    case 'agent':
      return record.skillSpec?.toLowerCase() ?? null;
  }
}

export function positionOf(record: RunRecord, by: SortField): OrderPosition {
  return { key: sortKey(record, by), seq: record.seq };
}

/** Negative when `a` comes first. Runs without a skill come last in both directions. */
export function comparePositions(a: OrderPosition, b: OrderPosition, order: SortOrder): number {
  const sign = order === 'asc' ? 1 : -1;
  if (a.key !== b.key) {
    if (a.key === null) return 1;
    if (b.key === null) return -1;
    return (a.key < b.key ? -1 : 1) * sign;
  }
  return (a.seq - b.seq) * sign;
}

/** True when `value` fits the keys of `by` (a cursor must not carry a title where a time belongs). */
export function isKeyOf(by: SortField, value: unknown): value is SortKey {
  if (by === 'created_at' || by === 'updated_at') return Number.isSafeInteger(value);
  if (by === 'agent' && value === null) return true;
  return typeof value === 'string';
}
