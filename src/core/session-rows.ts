/**
 * The outbox rows that move a run's session where a place shows one (a working indicator and a stop
 * control): owed by the intake worker when it starts, revives or stops a run, and by the tracker when
 * it observes a change of phase. Each is keyed by the transition that makes the change, so the worker
 * and the tracker owing the same change owe one row. Pure.
 */
import { receivedKey, sessionKey, sessionPhaseOf, type OutboxMessage, type SessionPhase } from './ports/messages.js';
import type { SessionPlaces } from './ports/notifier.js';
import type { NewOutboxRow, TrackedRun } from './ports/store.js';

/** What the session rows of a run need to know about it. */
export type SessionRun = Pick<TrackedRun, 'runId' | 'title' | 'destinations' | 'triggerKey'>;

/**
 * The rows that move the run's session to `phase` at each of its destinations that shows sessions,
 * keyed by the transition that makes the change (`sessionKey`): owed twice, they are one row.
 * `opening` marks the run's first one (who asked becomes the session's initiator where it is created).
 */
export function sessionRows(
  run: SessionRun,
  transition: number,
  phase: SessionPhase,
  places: SessionPlaces | undefined,
  opening?: { initiator?: { platform: string; id: string } },
): NewOutboxRow[] {
  if (!places) return [];
  return run.destinations
    .filter((destination) => places(destination))
    .map((destination) => {
      const message: OutboxMessage = {
        kind: 'session',
        phase,
        title: run.title ?? run.runId,
        receivedKey: receivedKey(run.triggerKey ?? run.runId, destination),
        ...(opening && { opening: true as const }),
        ...(opening?.initiator && { initiator: { platform: opening.initiator.platform, id: opening.initiator.id } }),
      };
      return { key: sessionKey(run.runId, transition, destination, phase), destination, kind: 'session', payload: message };
    });
}

/**
 * The session rows a newly observed state owes: when the run's session phase changes, and when a run
 * revived by a follow-up ended again (its `working` may have been owed by that follow-up, not seen).
 */
export function observedSessionRows(stored: TrackedRun, state: string, endedAgain: boolean, places: SessionPlaces | undefined): NewOutboxRow[] {
  const phase = sessionPhaseOf(state);
  if (phase === sessionPhaseOf(stored.state) && !endedAgain) return [];
  return sessionRows(stored, stored.transition + 1, phase, places);
}

/**
 * A follow-up reached a run that was waiting or over: it works again from now on. The tracker's
 * observation of that revival owes the same row, so it is set once.
 */
export function revivedSessionRows(run: TrackedRun, places: SessionPlaces | undefined): NewOutboxRow[] {
  if (sessionPhaseOf(run.state) === 'working') return [];
  return sessionRows(run, run.transition + 1, 'working', places);
}

/**
 * The run API took a stop, or no longer knows the run: its session leaves `working` (or `waiting`) now,
 * not only once the tracker sees it CANCELLED (which owes the same row). A run already idle owes nothing.
 */
export function endedSessionRows(run: TrackedRun, places: SessionPlaces | undefined): NewOutboxRow[] {
  if (sessionPhaseOf(run.state) === 'idle') return [];
  return sessionRows(run, run.transition + 1, 'idle', places);
}
