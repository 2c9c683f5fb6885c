import type { SettingRepository } from '../ports/store.js';
import { schedulePausedSetting } from '../ports/setting-names.js';

/**
 * Whether a schedule is paused, kept in the settings table so every process (service and CLI) on
 * the database sees the same answer. A resume is stored too (`paused: false`): its time is where the
 * count of failed runs in a row starts again.
 */

export interface PauseState {
  paused: boolean;
  /** When it was paused or resumed (epoch ms). */
  at: number;
  /** Why it was paused, in words (`3 failed runs in a row …`, `paused with agent-bridge schedules pause`). */
  reason?: string;
}

/** The schedule's pause state; undefined when it was never paused. */
export async function readPause(settings: SettingRepository, schedule: string): Promise<PauseState | undefined> {
  const value = await settings.get(schedulePausedSetting(schedule));
  if (value === undefined) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<PauseState>;
    return {
      paused: parsed.paused === true,
      at: typeof parsed.at === 'number' ? parsed.at : 0,
      ...(typeof parsed.reason === 'string' && { reason: parsed.reason }),
    };
  } catch {
    // Written by hand (e.g. `true`): honour the obvious meaning rather than ignore it.
    return { paused: value.trim().toLowerCase() === 'true', at: 0 };
  }
}

/** Pauses (with a reason) or resumes the schedule. */
export async function writePause(settings: SettingRepository, schedule: string, state: PauseState): Promise<void> {
  await settings.set(schedulePausedSetting(schedule), JSON.stringify(state));
}
