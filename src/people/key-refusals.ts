/**
 * That the run API refused a person's key: remembered in the settings, so `/agent whoami`
 * and the console can say so. A key connected after the refusal is a new key: the mark no longer counts.
 */
import type { SettingRepository } from '../core/ports/store.js';
import { personKeyRefusedSetting } from '../core/ports/setting-names.js';

/** When the run API last refused the person's key and with which HTTP status. */
export interface KeyRefusal {
  at: number;
  status: number;
}

/** Records a refusal of the person's current key. */
export async function markKeyRefused(settings: SettingRepository, personId: string, refusal: KeyRefusal): Promise<void> {
  await settings.set(personKeyRefusedSetting(personId), JSON.stringify(refusal));
}

/** The refusal of the key connected at `connectedAt`, if the run API refused it since; undefined otherwise. */
export async function keyRefusal(settings: SettingRepository, personId: string, connectedAt: number): Promise<KeyRefusal | undefined> {
  const raw = await settings.get(personKeyRefusedSetting(personId));
  if (raw === undefined) return undefined;
  try {
    const parsed = JSON.parse(raw) as Partial<KeyRefusal>;
    if (typeof parsed.at !== 'number' || typeof parsed.status !== 'number') return undefined;
    return parsed.at >= connectedAt ? { at: parsed.at, status: parsed.status } : undefined;
  } catch {
    return undefined;
  }
}
