/**
 * When the run API refuses the key a person's runs are watched with (revoked, expired), the
 * tracker loses sight of those runs. Nobody would know why their thread went quiet, so the key is
 * marked refused and each run's places are told once: the owner privately where the surface allows
 * it, with how to connect a working key, and the thread or issue that the run's next states
 * cannot be shown while the key is refused. Rows are keyed by (run, transition, place), so later ticks,
 * restarts and other processes owe nothing more for the same loss.
 */
import type { Logger } from '../ports/logger.js';
import { receivedKey, type OutboxMessage } from '../ports/messages.js';
import type { RunKeys } from '../ports/people.js';
import type { NewOutboxRow, Store, TrackedRun } from '../ports/store.js';
import type { Surfaces } from '../surfaces.js';

/** Runs told about per loss: a person rarely has more at once; the rest keep their silence, as before. */
const MAX_RUNS_TOLD = 100;

/** What the tracker needs to tell people: marking the key, and the words for connecting another. */
export type KeyLossPeople = Pick<RunKeys, 'refused' | 'howToConnect'>;

/** The rows owed for one run whose owner's key was refused with `status`. */
export function keyLostRows(run: TrackedRun, personId: string, status: number, howToConnect: string, surfaces: Surfaces): NewOutboxRow[] {
  const places = run.destinations.filter((destination) => surfaces.isConversation(destination));
  const privately = places.find((destination) => surfaces.speaksPrivately(destination));
  const title = run.title ?? run.runId;
  const rows: NewOutboxRow[] = [];
  const threaded = (destination: string) => receivedKey(run.triggerKey ?? run.runId, destination);
  if (privately !== undefined) {
    rows.push({
      key: `key-lost-private:${run.runId}:${run.transition}`,
      destination: privately,
      kind: 'notice',
      payload: {
        kind: 'notice',
        text: `I can no longer follow your run “${title}”: the run API refused your personal API key (${status}). Connect a working key: ${howToConnect}.`,
        privateTo: personId,
        receivedKey: threaded(privately),
      } satisfies OutboxMessage,
    });
  }
  // Where nobody can be told privately, the place itself says how to connect a key.
  const fix = privately === undefined ? ` They can connect one with ${howToConnect}.` : '';
  for (const destination of places) {
    rows.push({
      key: `key-lost:${run.runId}:${run.transition}:${destination}`,
      destination,
      kind: 'notice',
      payload: {
        kind: 'notice',
        text: `I can no longer follow this run: the run API refused the personal API key of the person who started it, so its next states cannot be shown here until their key works again.${fix}`,
        receivedKey: threaded(destination),
      } satisfies OutboxMessage,
    });
  }
  return rows;
}

/** Marks the key refused and owes the messages for the person's tracked runs; never fails the tick. */
export async function tellKeyLost(
  store: Store,
  people: KeyLossPeople,
  surfaces: Surfaces,
  loss: { personId: string; status: number; now: number },
  logger: Logger,
): Promise<void> {
  const { personId, status, now } = loss;
  try {
    await people.refused(personId, status);
    const runs = await store.trackedRuns.listTrackedByKeyOwner(personId, MAX_RUNS_TOLD);
    const rows = runs.flatMap((run) => keyLostRows(run, personId, status, people.howToConnect(), surfaces));
    if (rows.length > 0) await store.outbox.add(rows, now);
  } catch (error) {
    logger.warn({ err: error, person: personId }, 'could not tell a person that their runs cannot be followed');
  }
}
