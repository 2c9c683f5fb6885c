/**
 * A list traversal the tracker cut short (`maxPagesPerTick`), kept in a setting so the next tick
 * resumes from its cursor: one per key (the service key's, and each person's).
 */
import type { SettingRepository } from '../ports/store.js';

/** A traversal in progress; `top` is the largest `updated_at` of its first tick (see the tracker's `listPhase`). */
export interface Scan {
  /** Null: the key's first traversal, which lists all its runs (a person's key has no watermark yet). */
  updatedAfter: string | null;
  cursor: string | null;
  top: string | null;
  startedAt: number;
}

/** The saved traversal, if any; an unreadable one is none. `sinceOptional`: a traversal without `updatedAfter` is valid. */
export async function loadScan(settings: SettingRepository, name: string, sinceOptional: boolean): Promise<Scan | undefined> {
  const text = await settings.get(name);
  if (!text) return undefined;
  try {
    const scan = JSON.parse(text) as Scan;
    const since = typeof scan.updatedAfter === 'string' || (scan.updatedAfter === null && sinceOptional);
    return since && typeof scan.startedAt === 'number' ? scan : undefined;
  } catch {
    return undefined;
  }
}

/** Saves the traversal, or clears it (the settings port has no delete: an empty value means none). */
export async function saveScan(settings: SettingRepository, name: string, scan: Scan | undefined): Promise<void> {
  await settings.set(name, scan === undefined ? '' : JSON.stringify(scan));
}
