import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite-store.js';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { TestClock } from '../ports/clock.js';
import { DEFAULT_ALIVE_BEATS, DEFAULT_BEAT_MS, Liveness, type ProcessIdentity } from './liveness.js';
import type { ProcessRecord } from '../ports/store.js';

const TTL = DEFAULT_BEAT_MS * DEFAULT_ALIVE_BEATS;
const self: ProcessIdentity = { id: 'h:100:self', host: 'h', pid: 100 };

let store: SqliteStore;
let clock: TestClock;
beforeEach(() => {
  store = openSqliteStore({ path: ':memory:' });
  clock = new TestClock();
});
afterEach(async () => {
  await store.close();
});

const liveness = (identity: ProcessIdentity, isRunning?: (process: ProcessRecord) => boolean | undefined) =>
  new Liveness({ store, clock, logger: new CapturingLogger(), self: identity, ...(isRunning && { isRunning }) });

describe('Liveness', () => {
  it('registers at start and stays alive while it beats', async () => {
    const own = liveness(self);
    await own.start();
    for (let beat = 0; beat < 10; beat++) {
      await clock.advance(own.beatMs);
      expect(await own.beat()).toEqual([]);
    }
    expect(await store.processes.listRunning('h')).toMatchObject([{ id: self.id, heartbeatAt: clock.now(), aliveUntil: clock.now() + TTL, stoppedAt: null }]);
  });

  it('at start, marks stopped the processes of its host that no longer run, and only those', async () => {
    const gone = { id: 'h:7:gone', host: 'h', pid: 7 };
    const running = { id: 'h:8:running', host: 'h', pid: 8 };
    const unsure = { id: 'h:9:unsure', host: 'h', pid: 9 };
    const elsewhere = { id: 'other:7:x', host: 'other', pid: 7 };
    for (const other of [gone, running, unsure, elsewhere]) await store.processes.heartbeat(other, clock.now(), TTL);
    const asked: string[] = [];
    const verdicts: Record<number, boolean | undefined> = { 7: false, 8: true, 9: undefined };

    expect(await liveness(self, (process) => (asked.push(process.id), verdicts[process.pid])).start()).toEqual([gone.id]);
    expect(asked.sort()).toEqual([gone.id, running.id, unsure.id]);
    expect((await store.processes.listRunning('h')).map((process) => process.id).sort()).toEqual([running.id, self.id, unsure.id].sort());
    expect((await store.processes.listRunning('other')).map((process) => process.id)).toEqual([elsewhere.id]);
  });

  it('finds a process that stopped beating once, when its beats ran out', async () => {
    const other = liveness({ id: 'h:200:other', host: 'h', pid: 200 });
    const own = liveness(self);
    await other.start();
    await own.start();
    const found: string[] = [];
    for (let elapsed = 0; elapsed <= TTL + DEFAULT_BEAT_MS; elapsed += DEFAULT_BEAT_MS) {
      await clock.advance(DEFAULT_BEAT_MS);
      found.push(...(await own.beat()));
      if (elapsed < TTL - DEFAULT_BEAT_MS) expect(found).toEqual([]);
    }
    expect(found).toEqual(['h:200:other']);
  });

  it('frees what it holds at once when it stops', async () => {
    const own = liveness(self);
    await own.start();
    expect(await store.leases.acquire('tracker', self.id, clock.now(), 30_000)).toBe(true);
    expect(await store.leases.acquire('tracker', 'h:300:next', clock.now(), 30_000)).toBe(false);
    await own.stop();
    expect(await store.leases.acquire('tracker', 'h:300:next', clock.now(), 30_000)).toBe(true);
  });
});
