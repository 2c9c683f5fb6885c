/**
 * The outbox rows that move a run's session where a place shows one (a working indicator and a stop
 * control): owed by the intake worker when it starts, revives or stops a run, and by the tracker when
 * it observes a change of phase. Each is keyed by the transition that makes the change, so the worker
 * and the tracker owing the same change owe one row. Pure.
 */
import { receivedKey, sessionKey, sessionPhaseOf, type OutboxMessage, type SessionChange, type SessionPhase } from './ports/messages.js';
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

/**
 * `rows` with each place's session row folded into the status row owed at the same place: one
 * delivery instead of two, the session change first (the order the two rows had). A place without a
 * status row keeps its session row. Only for rows no one else owes under the session row's key — a
 * run's start (transition 0): the tracker and a stop owe a later transition's session row by its key,
 * and a fold would owe that change twice.
 */
export function foldSessionRows(rows: readonly NewOutboxRow[]): NewOutboxRow[] {
  const statusAt = new Set(rows.filter((row) => row.kind === 'status').map((row) => row.destination));
  const sessions = new Map<string, SessionChange>();
  for (const row of rows) {
    if (row.kind !== 'session' || !statusAt.has(row.destination) || sessions.has(row.destination)) continue;
    const message = row.payload as Extract<OutboxMessage, { kind: 'session' }>;
    sessions.set(row.destination, {
      phase: message.phase,
      title: message.title,
      ...(message.initiator && { initiator: message.initiator }),
      ...(message.opening && { opening: message.opening }),
    });
  }
  return rows.flatMap((row) => {
    const change = sessions.get(row.destination);
    if (!change) return [row];
    if (row.kind === 'session') return [];
    if (row.kind !== 'status') return [row];
    return [{ ...row, payload: { ...(row.payload as Extract<OutboxMessage, { kind: 'status' }>), session: change } }];
  });
}
