import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aTrigger, anOutboxRow } from '../../../test/store/helpers.js';
import { postgresSkipNote, requirePostgres, startPostgres, type PostgresServer } from '../../../test/helpers/postgres-server.js';
import { until } from '../../../test/helpers/until.js';
import type { ChangeOrigin, StoreChange } from '../../core/ports/store.js';
import { openPostgresStore, type PostgresStore } from './postgres-store.js';

/*
 * Two stores on one database stand for two replicas: what one commits wakes the other through
 * LISTEN/NOTIFY, and a listener whose connection is cut listens again by itself. A store that listens
 * signs what it writes, so the others can tell a replica's change (which that replica works) from a
 * change nobody is working.
 */
const runs = requirePostgres('wake across replicas');

describe.skipIf(!runs)(`change notifications between replicas${postgresSkipNote()}`, () => {
  let server: PostgresServer;
  let a: PostgresStore;
  let b: PostgresStore;
  let url: string;
  const seenByB: Array<{ change: StoreChange; origin: ChangeOrigin; at: number }> = [];

  beforeAll(async () => {
    server = await startPostgres();
    url = await server.createDatabase();
    a = await openPostgresStore({ url });
    b = await openPostgresStore({ url });
    b.onChange((change, origin) => seenByB.push({ change, origin, at: performance.now() }));
    await b.listening();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await server?.stop();
  });

  it('a trigger stored by one replica wakes the other, and so does an outbox row', async () => {
    seenByB.length = 0;
    const storedAt = performance.now();
    await a.triggers.enqueue({ trigger: aTrigger({ key: 'wake-1' }), now: 1000 });
    const woke = await until(() => seenByB.find((seen) => seen.change === 'triggers'), 'replica B to be told about the trigger');
    console.log(`replica B woke ${(woke.at - storedAt).toFixed(1)} ms after replica A's enqueue was called`);

    await a.outbox.add([anOutboxRow('wake-out-1')], 1000);
    await until(() => seenByB.find((seen) => seen.change === 'outbox'), 'replica B to be told about the outbox row');
    // A does not listen: nothing says its process works what it stored.
    expect(new Set(seenByB.map((seen) => seen.origin))).toEqual(new Set(['unknown']));
  });

  it("signs what a listening store writes: it is told at once and once, the others hear it is a replica's", async () => {
    const c = await openPostgresStore({ url });
    try {
      const seenByC: Array<{ change: StoreChange; origin: ChangeOrigin }> = [];
      c.onChange((change, origin) => seenByC.push({ change, origin }));
      await c.listening();
      seenByC.length = 0;
      seenByB.length = 0;
      await c.triggers.enqueue({ trigger: aTrigger({ key: 'signed-1' }), owed: [anOutboxRow('signed-out-1')], now: 1500 });
      // Told as the statement returned, not after a round trip through the server.
      expect(seenByC).toEqual([
        { change: 'triggers', origin: 'self' },
        { change: 'outbox', origin: 'self' },
      ]);
      await until(() => seenByB.length >= 2, "replica B to hear of C's trigger and its outbox row");
      expect(seenByB.map(({ change, origin }) => ({ change, origin }))).toEqual([
        { change: 'triggers', origin: 'replica' },
        { change: 'outbox', origin: 'replica' },
      ]);
      // A marker from A after it: everything C heard before it, C was told once.
      await a.outbox.add([anOutboxRow('signed-marker', 'other')], 1500);
      await until(() => seenByC.find((seen) => seen.origin === 'unknown'), 'the marker at C');
      expect(seenByC.map((seen) => seen.origin)).toEqual(['self', 'self', 'unknown']);
    } finally {
      await c.close();
    }
  });

  it('says nothing for what changed nothing: a repeated trigger key, a guarded write that lost', async () => {
    seenByB.length = 0;
    await a.triggers.enqueue({ trigger: aTrigger({ key: 'wake-2' }), now: 1000 });
    await until(() => seenByB.find((seen) => seen.change === 'triggers'), 'the first notification');
    // A marker after the no-ops: everything B hears before it came from the no-ops.
    seenByB.length = 0;
    await a.triggers.enqueue({ trigger: aTrigger({ key: 'wake-2' }), owed: [anOutboxRow('never-added')], now: 2000 });
    expect(await a.outbox.add([anOutboxRow('wake-out-1')], 2000)).toBe(0);
    await a.outbox.add([anOutboxRow('marker', 'other')], 2000);
    await until(() => seenByB.find((seen) => seen.change === 'outbox'), 'the marker');
    expect(seenByB.map((seen) => seen.change)).toEqual(['outbox']);
  });

  it('listens again after its connection was cut, and wakes once to look for what it missed', async () => {
    seenByB.length = 0;
    await server.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN agent_bridge_changes'");
    await until(() => seenByB.length > 0, 'the catch-up wake after reconnecting', 15_000);
    seenByB.length = 0;
    await a.triggers.enqueue({ trigger: aTrigger({ key: 'wake-3' }), now: 3000 });
    await until(() => seenByB.find((seen) => seen.change === 'triggers'), 'a notification on the new connection');
  });
});
