import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SLACK, TrackerHarness } from '../../../test/core/tracker-harness.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';

/* The tracker makes a run's pull request, on a repository a surface serves, one of its places. */

let h: TrackerHarness;
beforeEach(async () => {
  h = await TrackerHarness.start();
});
afterEach(async () => {
  await h.close();
});

const INTERVAL = 10_000;
const PR = 'github:acme/web#9';
const pullRequest = (url: string) => ({ artifacts: [{ artifact_type: 'PULL_REQUEST', data: { url, branch: 'fix' } }] });

describe('a run’s pull request becomes one of its places', () => {
  it('is linked to the run, added to its destinations once, and owed this transition’s status', async () => {
    const tracker = h.tracker('tracker-1', {}, { surfaces: testSurfaces({ githubRepos: { 'acme/web': {} } }) });
    const runId = await h.track();
    await tracker.tick();
    await h.advance(INTERVAL);
    h.drive(runId, 'INPROGRESS', pullRequest('https://github.com/Acme/Web/pull/9'));
    expect((await tracker.tick()).changed).toBe(1);
    expect(await h.store.anchors.currentRun(PR)).toBe(runId);
    expect((await h.store.trackedRuns.get(runId))?.destinations).toEqual([SLACK, PR]);
    expect(await h.keys()).toContain(`run:${runId}:1:${PR}:status`);
    await h.advance(INTERVAL);
    h.drive(runId, 'SUCCEEDED', pullRequest('https://github.com/acme/web/pull/9'));
    await tracker.tick();
    expect((await h.store.trackedRuns.get(runId))?.destinations).toEqual([SLACK, PR]);
    expect(await h.keys()).toContain(`run:${runId}:2:${PR}:announce`);
  });

  it.each([
    ['a repository with no route', { githubRepos: { 'acme/other': {} } }, 'https://github.com/acme/web/pull/9'],
    ['GitHub off', {}, 'https://github.com/acme/web/pull/9'],
    ['another host', { githubRepos: { '*': {} } }, 'https://gitlab.com/acme/web/pull/9'],
  ])('not with %s', async (_what, routes, url) => {
    const tracker = h.tracker('tracker-1', {}, { surfaces: testSurfaces(routes) });
    const runId = await h.track();
    await tracker.tick();
    await h.advance(INTERVAL);
    h.drive(runId, 'INPROGRESS', pullRequest(url));
    expect((await tracker.tick()).changed).toBe(1);
    expect((await h.store.trackedRuns.get(runId))?.destinations).toEqual([SLACK]);
    expect(await h.store.anchors.currentRun(PR)).toBeUndefined();
  });
});
