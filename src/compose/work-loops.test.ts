import { afterEach, expect, it } from 'vitest';
import type { Liveness } from '../core/liveness/liveness.js';
import { TestClock } from '../core/ports/clock.js';
import { silentLogger } from '../core/ports/logger.js';
import type { Scheduler } from '../core/schedules/scheduler.js';
import type { Tracker } from '../core/tracker/tracker.js';
import { openSqliteStore, type SqliteStore } from '../store/sqlite-store.js';
import { startWorkLoops, type WorkLoops } from './work-loops.js';

const DAY = 86_400_000;
let store: SqliteStore | undefined;
let loops: WorkLoops | undefined;
afterEach(async () => {
  await loops?.stop();
  await store?.close();
});

it('the hourly housekeeping deletes audit entries older than audit.retention, and keeps the others', async () => {
  const clock = new TestClock();
  store = openSqliteStore({ path: ':memory:' });
  const now = clock.now();
  await store.audit.record({ at: now - 91 * DAY, act: 'run.started', surface: 'slack', onceKey: 'old' });
  await store.audit.record({ at: now - 89 * DAY, act: 'run.started', surface: 'slack', onceKey: 'kept' });
  loops = startWorkLoops({
    store,
    clock,
    logger: silentLogger,
    intake: [],
    outbox: [],
    tracker: { tick: async () => ({ changed: 0 }), release: async () => {} } as unknown as Tracker,
    scheduler: { check: async () => {} } as unknown as Scheduler,
    liveness: { beatMs: DAY, beat: async () => [] } as unknown as Liveness,
    intervals: { trackerMs: DAY, dedupeRetentionMs: 7 * DAY, auditRetentionMs: 90 * DAY },
  });
  await clock.advance(1);
  expect((await store.audit.list({ limit: 10 })).map((entry) => entry.onceKey)).toEqual(['kept']);
  // A day later an hourly pass finds the other one older than 90 days too.
  await clock.advance(DAY + 3_600_000);
  expect(await store.audit.list({ limit: 10 })).toEqual([]);
});
