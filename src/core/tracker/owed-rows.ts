/**
 * The outbox rows a tracked run's observed change owes each of its destinations. Pure: the tracker
 * writes them with the compare-and-set that records the change (docs/architecture.md §5).
 */
import type { RunItem } from '../ports/agent-runs.js';
import { receivedKey, transitionKey, type OutboxMessage } from '../ports/messages.js';
import type { NewOutboxRow, TrackedRun } from '../ports/store.js';
import type { Surfaces } from '../surfaces.js';
import { requestOptionsOf } from './route-policy.js';
import { toSnapshot } from './run-snapshot.js';

/**
 * A status edit for every destination that can edit in place, and an announcement too when `announce`
 * (BLOCKED and end states); `cancelledBy` names who pressed Cancel in a CANCELLED announcement.
 */
export function transitionRows(
  stored: TrackedRun,
  run: RunItem,
  change: { sessionLink: string | null; announce: boolean; cancelledBy?: string | undefined },
  surfaces: Surfaces,
): NewOutboxRow[] {
  const { sessionLink, announce, cancelledBy } = change;
  const transition = stored.transition + 1;
  const snapshot = toSnapshot({ ...run, session_link: sessionLink }, stored.title ?? stored.runId);
  const options = requestOptionsOf(stored.route);
  if (options) snapshot.options = options;
  return stored.destinations.flatMap((destination) => {
    const received = receivedKey(stored.triggerKey ?? stored.runId, destination);
    const status: OutboxMessage = { kind: 'status', run: snapshot, receivedKey: received };
    const rows: NewOutboxRow[] = surfaces.editsInPlace(destination)
      ? [{ key: transitionKey(stored.runId, transition, destination, 'status'), destination, kind: 'status', payload: status }]
      : [];
    if (announce) {
      const message: OutboxMessage = { kind: 'announce', run: snapshot, receivedKey: received, ...(cancelledBy ? { cancelledBy } : {}) };
      rows.push({ key: transitionKey(stored.runId, transition, destination, 'announce'), destination, kind: 'announce', payload: message });
    }
    return rows;
  });
}

/** The one notice each destination is owed when the run API no longer knows the run (404). */
export function forgottenRows(stored: TrackedRun): NewOutboxRow[] {
  const transition = stored.transition + 1;
  const text = `The run API no longer knows run ${stored.runId} (last seen ${stored.state}); agent-bridge stopped following it.`;
  return stored.destinations.map((destination) => ({
    key: `run:${stored.runId}:${transition}:${destination}:notice`,
    destination,
    kind: 'notice',
    payload: { kind: 'notice', text } satisfies OutboxMessage,
  }));
}
