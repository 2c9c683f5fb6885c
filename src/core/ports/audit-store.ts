/**
 * The audit trail as the store keeps it (part of the `Store` port as `store.audit`; see `store.ts` for
 * the rules): entries appended once by their `onceKey`, read newest first by the CLI and the console,
 * and deleted once older than `audit.retention`.
 */
import type { AuditAct, AuditEntry, AuditTrail } from './audit.js';

/** Every act, in the order people read them (the console's filter, the CLI's help). */
export const AUDIT_ACTS = Object.keys({
  'run.started': true,
  'run.followed_up': true,
  'run.cancelled': true,
  'request.held': true,
  'request.approved': true,
  'request.rejected': true,
  'request.expired': true,
  'request.refused_limit': true,
  'key.connected': true,
  'key.removed': true,
  'console.retry': true,
  'console.dismiss': true,
  'console.pause': true,
  'console.resume': true,
} satisfies Record<AuditAct, true>) as readonly AuditAct[];

/** Whether `name` is an act's name. */
export function isAuditAct(name: string): name is AuditAct {
  return (AUDIT_ACTS as readonly string[]).includes(name);
}

/** A stored entry: the entry and its row id (the order entries were recorded in). */
export type StoredAuditEntry = AuditEntry & { readonly id: number };

/** Where a page of entries starts: after this entry in newest-first order. */
export interface AuditCursor {
  at: number;
  id: number;
}

/** Filters of a listing; every one optional, all of them must hold. */
export interface AuditFilter {
  /** Entries at or after this time (epoch ms). */
  since?: number;
  /** Who did it, by person id exactly. */
  personId?: string;
  act?: AuditAct;
}

export interface AuditRepository extends AuditTrail {
  /** Entries newest first (`at`, then id, descending), `limit` of them after `after`, filtered. */
  list(query: AuditFilter & { limit: number; after?: AuditCursor }): Promise<StoredAuditEntry[]>;
  /** Deletes the entries recorded before `before` (epoch ms) in one statement; returns how many. */
  prune(before: number): Promise<number>;
}
