import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SLACK, TrackerHarness } from '../../../test/core/tracker-harness.js';
import type { OutboxMessage } from '../ports/messages.js';
import { revivedSessionRows, endedSessionRows } from '../session-rows.js';

/*
 * The tracker owes a run's session rows (`session` messages) at the places that show
 * sessions, once per change of phase — working, waiting (BLOCKED), idle (ended) — keyed by the
 * transition, so what the intake worker owed for the same change (a revival, a stop) is one row.
 */

let h: TrackerHarness;
beforeEach(async () => {
  h = await TrackerHarness.start();
});
afterEach(async () => {
  await h.close();
});

const INTERVAL = 10_000;
const LINEAR = 'linear:ENG-1';
/** Only the Slack thread shows sessions here; the Linear issue gets none. */
const sessionPlaces = (destination: string) => destination.startsWith('slack:');
const sessionKeys = async () => (await h.keys()).filter((key) => key.includes(':session:'));

describe('Tracker: a run’s session', () => {
  it('owes each change of phase once, only where sessions are shown: waiting at BLOCKED, working again, idle at the end', async () => {
    const tracker = h.tracker('tracker-1', {}, { sessionPlaces });
    const runId = await h.track({ destinations: [SLACK, LINEAR] });
    for (const state of ['INPROGRESS', 'BLOCKED', 'INPROGRESS', 'SUCCEEDED']) {
      await h.advance(INTERVAL);
      h.drive(runId, state);
      expect((await tracker.tick()).changed).toBe(1);
    }
    // QUEUED → INPROGRESS is no change of phase: nothing for it.
    expect(await sessionKeys()).toEqual([
      `run:${runId}:2:${SLACK}:session:waiting`,
      `run:${runId}:3:${SLACK}:session:working`,
      `run:${runId}:4:${SLACK}:session:idle`,
    ]);
    expect(await h.payload(`run:${runId}:2:${SLACK}:session:waiting`)).toEqual({
      kind: 'session',
      phase: 'waiting',
      title: 'Fix the build',
      receivedKey: `received:Ev1:${SLACK}`,
    } satisfies OutboxMessage);
    // The session row of a transition comes before its status edit and announcement.
    const keys = await h.keys();
    expect(keys.indexOf(`run:${runId}:4:${SLACK}:session:idle`)).toBeLessThan(keys.indexOf(`run:${runId}:4:${SLACK}:status`));
  });

  it('owes nothing without places that show sessions', async () => {
    const tracker = h.tracker();
    const runId = await h.track();
    h.drive(runId, 'SUCCEEDED');
    await tracker.tick();
    expect(await sessionKeys()).toEqual([]);
  });

  it('a revival owed by a follow-up and the tracker seeing it are one row; the end after it is the next', async () => {
    const tracker = h.tracker('tracker-1', {}, { sessionPlaces });
    const runId = await h.track();
    h.drive(runId, 'SUCCEEDED');
    await tracker.tick();
    // The follow-up step owes the revival from the stored run (transition 1, SUCCEEDED)…
    const ended = (await h.store.trackedRuns.get(runId))!;
    await h.store.outbox.add(revivedSessionRows(ended, sessionPlaces), h.clock.now());
    await h.store.trackedRuns.retrack(runId, h.clock.now());
    // …and the tracker then sees it working: the same key, nothing new.
    h.drive(runId, 'INPROGRESS');
    await h.advance(INTERVAL);
    await tracker.tick();
    h.drive(runId, 'SUCCEEDED');
    await h.advance(INTERVAL);
    await tracker.tick();
    expect(await sessionKeys()).toEqual([
      `run:${runId}:1:${SLACK}:session:idle`,
      `run:${runId}:2:${SLACK}:session:working`,
      `run:${runId}:3:${SLACK}:session:idle`,
    ]);
  });

  it('a run revived and ended again between two ticks still ends its session (idle after the revival)', async () => {
    const tracker = h.tracker('tracker-1', {}, { sessionPlaces });
    const runId = await h.track();
    h.drive(runId, 'SUCCEEDED');
    await tracker.tick();
    const ended = (await h.store.trackedRuns.get(runId))!;
    await h.store.outbox.add(revivedSessionRows(ended, sessionPlaces), h.clock.now());
    await h.store.trackedRuns.retrack(runId, h.clock.now());
    // Revived and over again before the next tick: the tracker sees SUCCEEDED with a later updated_at.
    await h.advance(INTERVAL);
    h.drive(runId, 'INPROGRESS');
    h.drive(runId, 'SUCCEEDED');
    await tracker.tick();
    expect(await sessionKeys()).toEqual([
      `run:${runId}:1:${SLACK}:session:idle`,
      `run:${runId}:2:${SLACK}:session:working`,
      `run:${runId}:2:${SLACK}:session:idle`,
    ]);
  });

  it('a stop owed by the cancel and the tracker seeing CANCELLED are one row', async () => {
    const tracker = h.tracker('tracker-1', {}, { sessionPlaces });
    const runId = await h.track();
    await tracker.tick();
    const working = (await h.store.trackedRuns.get(runId))!;
    await h.store.outbox.add(endedSessionRows(working, sessionPlaces), h.clock.now());
    h.emulator.engine.cancel(runId);
    await h.advance(INTERVAL);
    await tracker.tick();
    expect(await h.store.trackedRuns.get(runId)).toMatchObject({ state: 'CANCELLED', transition: 1 });
    expect(await sessionKeys()).toEqual([`run:${runId}:1:${SLACK}:session:idle`]);
    // A run that is not working has no session to stop.
    expect(endedSessionRows((await h.store.trackedRuns.get(runId))!, sessionPlaces)).toEqual([]);
  });

  it('a run the API no longer knows leaves its sessions idle (nothing would change them again)', async () => {
    const tracker = h.tracker('tracker-1', {}, { sessionPlaces });
    await h.store.trackedRuns.insert(h.trackedRun({ run_id: 'run_gone', state: 'INPROGRESS' }, { destinations: [SLACK, LINEAR] }), h.clock.now());
    await tracker.tick();
    expect(await sessionKeys()).toEqual([`run:run_gone:1:${SLACK}:session:idle`]);
  });
});
