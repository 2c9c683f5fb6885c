import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { OutboxMessage } from '../ports/messages.js';
import { scheduleDestinations, type ScheduleDefinition } from './schedule-definition.js';
import { Surfaces } from '../surfaces.js';
import { readPause, writePause, type PauseState } from './schedule-pause.js';
import { fireRunOutcome } from './schedule-status.js';
import type { NewOutboxRow, Store } from '../ports/store.js';

/**
 * `pause_after_failures: N`: after N failed runs in a row the schedule pauses and says so where it
 * reports. A failed run is one that ended FAILED or ERROR, or a fire whose run could not be started
 * at all (the intake worker gave up, e.g. the route's environment does not exist). SUCCEEDED ends
 * the streak. CANCELLED neither counts nor ends it (a person stopped it: it says nothing about
 * whether the schedule works), nor do runs still going, skipped and missed slots. Only fires after
 * the last resume count, so a resumed schedule gets N fresh tries.
 */

/** How many fires beyond N are looked through for the streak (neutral fires in between). */
const LOOKBACK = 50;

export interface FailedFire {
  slot: string;
  runId?: string;
  /** FAILED, ERROR, or `not started`. */
  state: string;
}

/** The newest failed fires in a row after `after` (epoch ms), newest first, at most `limit`. */
export async function failureStreak(store: Store, schedule: string, after: number, limit: number, known?: ReadonlyMap<string, string>): Promise<FailedFire[]> {
  const failures: FailedFire[] = [];
  for (const fire of await store.scheduleFires.list(schedule, limit + LOOKBACK)) {
    if (fire.firedAt <= after || failures.length >= limit) break;
    const outcome = await fireRunOutcome(store, fire, known);
    if (outcome?.kind === 'not_started') failures.push({ slot: fire.slot, state: 'not started' });
    else if (outcome?.kind === 'run' && (outcome.state === 'FAILED' || outcome.state === 'ERROR')) {
      failures.push({ slot: fire.slot, runId: outcome.runId, state: outcome.state });
    } else if (outcome?.kind === 'run' && outcome.state === 'SUCCEEDED') break;
  }
  return failures;
}

/** The words people read when a schedule pauses itself. */
export function pausedNoticeText(schedule: string, count: number): string {
  return (
    `Schedule ${schedule} paused after ${count} failed run${count === 1 ? '' : 's'} in a row; ` + `resume with \`agent-bridge schedules resume ${schedule}\`.`
  );
}

/**
 * Pauses the schedule when its last N fires failed, owing a notice to each of its destinations.
 * Idempotent across processes: the notice's outbox key names the failure that completed the streak,
 * so it is owed once per pause. Returns the new pause state when it paused the schedule now.
 */
export async function pauseAfterFailures(
  deps: { store: Store; clock: Clock; logger: Logger; surfaces?: Surfaces },
  def: ScheduleDefinition,
  /** Run states learnt from the run API just now, newer than what the tracker stored. */
  known?: ReadonlyMap<string, string>,
): Promise<PauseState | undefined> {
  const { store, clock, logger } = deps;
  const limit = def.pauseAfterFailures;
  if (limit <= 0) return undefined;
  const current = await readPause(store.settings, def.name);
  if (current?.paused) return undefined;
  const failures = await failureStreak(store, def.name, current?.at ?? 0, limit, known);
  if (failures.length < limit) return undefined;
  const latest = failures[0] as FailedFire;
  const text = pausedNoticeText(def.name, limit);
  const owed: NewOutboxRow[] = scheduleDestinations(def, deps.surfaces ?? Surfaces.none).map((destination) => ({
    key: `notice:schedule-paused:${def.name}:${latest.slot}:${destination}`,
    destination,
    kind: 'notice',
    payload: { kind: 'notice', text } satisfies OutboxMessage,
  }));
  // The notice first: a crash before the pause is written repeats both (the key dedupes the notice),
  // whereas a pause written first would never be announced.
  await store.outbox.add(owed, clock.now());
  const lastRun = latest.runId ? `run ${latest.runId} ended ${latest.state}` : `slot ${latest.slot} ${latest.state}`;
  const state: PauseState = { paused: true, at: clock.now(), reason: `${limit} failed run${limit === 1 ? '' : 's'} in a row; last: ${lastRun}` };
  await writePause(store.settings, def.name, state);
  logger.warn({ schedule: def.name, failures }, text);
  return state;
}
