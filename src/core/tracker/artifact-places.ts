/**
 * A run's pull request is one of its places: when the tracker sees a pull request artifact
 * that a registered surface serves, that place is linked to the run (its replies, reviews and checks
 * then steer it) and added to the run's destinations (it hears every later state), once.
 */
import type { RunItem } from '../ports/agent-runs.js';
import type { Logger } from '../ports/logger.js';
import type { Store, TrackedRun } from '../ports/store.js';
import type { Surfaces } from '../surfaces.js';
import { pullRequestUrls } from './run-snapshot.js';

/**
 * The run with the places its pull requests are added: linked in the store first (a crash in between
 * leaves the place linked, and the next observation adds the destination). Unchanged when none is new.
 */
export async function withArtifactPlaces(
  stored: TrackedRun,
  reported: RunItem,
  deps: { store: Pick<Store, 'anchors' | 'trackedRuns'>; surfaces: Surfaces; logger: Logger; now: number },
): Promise<TrackedRun> {
  const places = pullRequestUrls(reported.artifacts)
    .map((url) => deps.surfaces.placeOfArtifact(url))
    .filter((place): place is string => place !== undefined && !stored.destinations.includes(place));
  if (places.length === 0) return stored;
  const added: string[] = [];
  for (const place of new Set(places)) {
    await deps.store.anchors.link(place, stored.runId, deps.now);
    await deps.store.trackedRuns.addDestination(stored.runId, place, deps.now);
    added.push(place);
  }
  deps.logger.info({ runId: stored.runId, places: added }, 'the run’s pull request became one of its places');
  return { ...stored, destinations: [...stored.destinations, ...added] };
}
