/**
 * Every name the core keeps in the store's `settings` (SettingRepository), in one place so the key
 * space can be read at once; a setting only one surface keeps is named in that surface's folder
 * (`<surface>/setting-names.ts`). The names are stored in existing databases: renaming one needs a
 * migration, so their spelling stays as first shipped.
 */

/** The tracker's `updated_after` watermark: the largest `updated_at` the server returned. */
export const TRACKER_WATERMARK = 'tracker.watermark';
/** A list traversal cut short by `maxPagesPerTick`, resumed by the next tick (JSON). */
export const TRACKER_SCAN = 'tracker.scan';
/** When (our clock) the last complete list traversal started. */
export const TRACKER_LISTED_AT = 'tracker.listed_at';

/** Who asked to stop a run, for its CANCELLED announcement. */
export function cancelledBySetting(runId: string): string {
  return `cancelled_by:${runId}`;
}

/** Where a thread created by a message of ours points: the anchor of the trigger that made it. */
export function anchorAliasSetting(anchor: string): string {
  return `anchor_alias:${anchor}`;
}

/** Whether a schedule is paused (and since when, why), JSON. */
export function schedulePausedSetting(schedule: string): string {
  return `schedule_paused:${schedule}`;
}

/** That the run API refused a person's personal key (401/403): when and with which status, JSON. */
export function personKeyRefusedSetting(personId: string): string {
  return `person_key_refused:${personId}`;
}

/** The tracker's watermark for the runs of one person's own key: as TRACKER_WATERMARK, per key. */
export function trackerOwnerWatermarkSetting(personId: string): string {
  return `tracker.watermark:${personId}`;
}

/** A list traversal of one person's key cut short, resumed next tick (JSON): as TRACKER_SCAN, per key. */
export function trackerOwnerScanSetting(personId: string): string {
  return `tracker.scan:${personId}`;
}
