import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aRun, aTrigger, anOutboxRow } from '../../../test/store/helpers.js';
import { postgresSkipNote, requirePostgres, startPostgres, type PostgresServer } from '../../../test/helpers/postgres-server.js';
import { openPostgresStore, type PostgresStore } from './postgres-store.js';
import type { OutboxRow } from '../../core/ports/store.js';

/*
 * Replicas racing on one PostgreSQL database, for real: four stores (four pools, as four processes
 * would have) claim, write and compare-and-set at the same moments. The contract suite checks each
 * rule one call at a time; this checks that the rules hold when the calls overlap.
 */
const runs = requirePostgres('replica races');
const REPLICAS = 4;
const WORKERS_PER_REPLICA = 4;

describe.skipIf(!runs)(`replicas racing on one database${postgresSkipNote()}`, () => {
  let server: PostgresServer;
  let replicas: PostgresStore[];
  beforeAll(async () => {
    server = await startPostgres();
    const url = await server.createDatabase();
    replicas = await Promise.all(Array.from({ length: REPLICAS }, () => openPostgresStore({ url, poolSize: WORKERS_PER_REPLICA })));
  });
  afterAll(async () => {
    await Promise.all((replicas ?? []).map((store) => store.close()));
    await server?.stop();
  });

  /** Ids of earlier rows of the same anchor or destination that are not finished yet. */
  async function unfinishedBefore(
    store: PostgresStore,
    table: 'triggers' | 'outbox',
    group: 'anchor' | 'destination',
    item: { id: number; anchor?: string; destination?: string },
  ) {
    const found = await store.pool.query<{ id: number }>(
      `SELECT id FROM ${table} WHERE ${group} = $1 AND id < $2 AND state IN ('pending', 'working', 'sending')`,
      [item[group], item.id],
    );
    return found.rows.map((row) => row.id);
  }

  /** Every worker of every replica claims and finishes until nothing is left; returns what each did, in order. */
  async function drain<T>(
    claim: (store: PostgresStore, owner: string) => Promise<T | undefined>,
    finish: (store: PostgresStore, owner: string, item: T) => Promise<void>,
  ) {
    const log: Array<{ event: 'claimed' | 'finished'; item: T; owner: string }> = [];
    const workers = replicas.flatMap((store, r) =>
      Array.from({ length: WORKERS_PER_REPLICA }, async (_, w) => {
        const owner = `replica-${r}/worker-${w}`;
        for (let idle = 0; idle < 3;) {
          const item = await claim(store, owner);
          if (!item) {
            idle++;
            await new Promise((resolve) => setImmediate(resolve));
            continue;
          }
          idle = 0;
          log.push({ event: 'claimed', item, owner });
          await finish(store, owner, item);
          log.push({ event: 'finished', item, owner });
        }
      }),
    );
    await Promise.all(workers);
    return log;
  }

  it('triggers: each claimed and finished once, one anchor in order and one at a time', async () => {
    const [first] = replicas;
    const anchors = 12;
    for (let i = 0; i < 240; i++) await first!.triggers.enqueue({ trigger: aTrigger({ key: `race-${i}`, anchor: `A${i % anchors}` }), now: 0 });
    const log = await drain(
      async (store, owner) => {
        const trigger = await store.triggers.claimNext(owner, 1, 60_000);
        // Its anchor's earlier triggers are all finished: none was still being worked on when this one was claimed.
        if (trigger) expect(await unfinishedBefore(store, 'triggers', 'anchor', trigger)).toEqual([]);
        return trigger;
      },
      async (store, owner, trigger) => {
        expect(await store.triggers.finish(trigger.id, owner, { state: 'done' }, {}, 2)).toBe(true);
      },
    );
    const claimed = log.filter((entry) => entry.event === 'claimed');
    expect(claimed).toHaveLength(240);
    expect(new Set(claimed.map((entry) => entry.item.id)).size).toBe(240);
    expect(new Set(claimed.map((entry) => entry.owner.split('/')[0])).size).toBe(REPLICAS);
    for (let a = 0; a < anchors; a++) {
      const ofAnchor = log.filter((entry) => entry.item.anchor === `A${a}`);
      // Claimed in id order, each finished before the next was claimed.
      expect(ofAnchor.filter((entry) => entry.event === 'claimed').map((entry) => entry.item.id)).toEqual(
        ofAnchor
          .filter((entry) => entry.event === 'claimed')
          .map((entry) => entry.item.id)
          .sort((x, y) => x - y),
      );
    }
    expect(await first!.triggers.countByState()).toMatchObject({ pending: 0, working: 0, done: 240 });
  });

  it('outbox: each row sent once, one destination in order and one at a time', async () => {
    const [first] = replicas;
    for (let i = 0; i < 200; i += 20) {
      await first!.outbox.add(
        Array.from({ length: 20 }, (_, j) => anOutboxRow(`row-${i + j}`, `D${(i + j) % 10}`)),
        0,
      );
    }
    const log = await drain(
      async (store, owner) => {
        const row = await store.outbox.claimNext(owner, 1, 60_000);
        if (row) expect(await unfinishedBefore(store, 'outbox', 'destination', row)).toEqual([]);
        return row;
      },
      async (store, owner, row) => {
        expect(await store.outbox.markSent(row.id, owner, { ok: true }, 2)).toBe(true);
      },
    );
    const claimed = log.filter((entry) => entry.event === 'claimed');
    expect(new Set(claimed.map((entry) => entry.item.id)).size).toBe(200);
    expect(claimed).toHaveLength(200);
    for (let d = 0; d < 10; d++) {
      const ofDestination = log.filter((entry) => entry.item.destination === `D${d}`);
      const ids = ofDestination.filter((entry) => entry.event === 'claimed').map((entry) => entry.item.id);
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
    }
    expect(await first!.outbox.counts()).toMatchObject({ pending: 0, sending: 0, sent: 200 });
  });

  it('outbox, each row marked sent and the next claimed in one statement: still each row once, one destination in order and one at a time', async () => {
    const [first] = replicas;
    await first!.outbox.add(
      Array.from({ length: 200 }, (_, j) => anOutboxRow(`chained-${j}`, `D${j % 7}`)),
      0,
    );
    // What each worker's last markSentAndClaimNext handed it, delivered before it claims again.
    const held = new Map<string, OutboxRow>();
    const log = await drain(
      async (store, owner) => {
        const row = held.get(owner) ?? (await store.outbox.claimNext(owner, 1, 60_000));
        held.delete(owner);
        if (row) expect(await unfinishedBefore(store, 'outbox', 'destination', row)).toEqual([]);
        return row;
      },
      async (store, owner, row) => {
        const { sent, next } = await store.outbox.markSentAndClaimNext(row.id, owner, { ok: true }, 2, 60_000);
        expect(sent).toBe(true);
        if (next) held.set(owner, next);
      },
    );
    const claimed = log.filter((entry) => entry.event === 'claimed');
    expect(new Set(claimed.map((entry) => entry.item.id)).size).toBe(200);
    expect(claimed).toHaveLength(200);
    for (let d = 0; d < 7; d++) {
      const ids = claimed.filter((entry) => entry.item.destination === `D${d}`).map((entry) => entry.item.id);
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
    }
    expect(await first!.outbox.counts()).toMatchObject({ pending: 0, sending: 0 });
    expect((await first!.outbox.list({ state: 'sent' })).filter((row) => row.key.startsWith('chained-'))).toHaveLength(200);
  });

  it('a named lease taken by many at once has one holder; a transition recorded by many at once is recorded once', async () => {
    const attempts = replicas.flatMap((store, r) => Array.from({ length: 5 }, (_, i) => store.leases.acquire('tracker', `replica-${r}:${i}`, 1000, 10_000)));
    expect((await Promise.all(attempts)).filter(Boolean)).toHaveLength(1);

    await replicas[0]!.trackedRuns.insert(aRun('race-run'), 0);
    const observation = { state: 'SUCCEEDED', serverUpdatedAt: null, sessionLink: null, tracked: false };
    const transitions = replicas.flatMap((store, r) =>
      Array.from({ length: 5 }, (_, i) => store.trackedRuns.recordTransition('race-run', 0, observation, [anOutboxRow(`race-run:1:${r}:${i}`)], 5)),
    );
    expect((await Promise.all(transitions)).filter(Boolean)).toHaveLength(1);
    expect(await replicas[0]!.trackedRuns.get('race-run')).toMatchObject({ transition: 1, state: 'SUCCEEDED' });
    expect((await replicas[0]!.outbox.list()).filter((row) => row.key.startsWith('race-run:'))).toHaveLength(1);
  });

  it('the same trigger stored by every replica at once is stored once, with its messages once', async () => {
    const results = await Promise.all(
      replicas.flatMap((store) =>
        Array.from({ length: 5 }, () =>
          store.triggers.enqueue({ trigger: aTrigger({ key: 'same-event' }), owed: [anOutboxRow('same-event:received')], now: 10 }),
        ),
      ),
    );
    expect(results.filter((result) => result.inserted)).toHaveLength(1);
    expect(new Set(results.map((result) => result.trigger.id)).size).toBe(1);
    expect((await replicas[0]!.outbox.list()).filter((row) => row.key === 'same-event:received')).toHaveLength(1);
  });

  it('replicas starting together store one console signing key, and a session one of them ends is ended for all', async () => {
    const offers = await Promise.all(
      replicas.flatMap((store, r) => Array.from({ length: 5 }, (_, k) => store.consoleSessions.signingKey(`key-${r}-${k}`, 1_000))),
    );
    expect(new Set(offers).size).toBe(1);
    expect(offers[0]).toMatch(/^key-\d-\d$/);
    await replicas[0]!.consoleSessions.end('sid-race', 10_000, 1_000);
    expect(await Promise.all(replicas.map((store) => store.consoleSessions.isEnded('sid-race')))).toEqual(replicas.map(() => true));
  });

  it('starts racing for the last slots under limits: as many reserved as there is room, in every round (issue 31)', async () => {
    const [first] = replicas;
    const rounds = 30;
    const racers = REPLICAS * WORKERS_PER_REPLICA;
    for (let round = 0; round < rounds; round++)
      for (let racer = 0; racer < racers; racer++)
        await first!.triggers.enqueue({ trigger: aTrigger({ key: `limit-${round}-${racer}`, anchor: `L${round}-${racer}` }), now: 0 });
    const now = Date.UTC(2026, 10, 27, 12);
    const none = { concurrent: 0, perDay: 0, creditsPerMonth: 0 };
    for (let round = 0; round < rounds; round++) {
      // Even rounds: one person with room for 2 runs at once; odd rounds: a route with room for 1 a day, asked by everyone.
      const outcomes = await Promise.all(
        Array.from({ length: racers }, (_, racer) =>
          replicas[racer % REPLICAS]!.usage.reserveStart({
            triggerKey: `limit-${round}-${racer}`,
            ...(round % 2 === 0
              ? { person: { id: `P${round}`, limits: { ...none, concurrent: 2 } }, route: { name: 'any' } }
              : { person: { id: `P${round}-${racer}`, limits: none }, route: { name: `R${round}`, limits: { ...none, perDay: 1 } } }),
            now,
            dayStart: now - 3_600_000,
            monthStart: now - 86_400_000,
            recent: now - 86_400_000,
          }),
        ),
      );
      const reserved = outcomes.filter((outcome) => outcome.reserved).length;
      expect({ round, reserved }).toEqual({ round, reserved: round % 2 === 0 ? 2 : 1 });
      for (const outcome of outcomes.filter((candidate) => !candidate.reserved))
        expect(outcome).toEqual(
          round % 2 === 0
            ? { reserved: false, scope: 'person', limit: 'concurrent', value: 2, used: 2 }
            : { reserved: false, scope: 'route', limit: 'per_day', value: 1, used: 1 },
        );
    }
  });
});
