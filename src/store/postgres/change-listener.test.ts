import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aTrigger, anOutboxRow } from '../../../test/store/helpers.js';
import { postgresSkipNote, requirePostgres, startPostgres, type PostgresServer } from '../../../test/helpers/postgres-server.js';
import { until } from '../../../test/helpers/until.js';
import type { StoreChange } from '../../core/ports/store.js';
import { openPostgresStore, type PostgresStore } from './postgres-store.js';

/*
 * Two stores on one database stand for two replicas: what one commits wakes the other through
 * LISTEN/NOTIFY, and a listener whose connection is cut listens again by itself.
 */
const runs = requirePostgres('wake across replicas');

describe.skipIf(!runs)(`change notifications between replicas${postgresSkipNote()}`, () => {
  let server: PostgresServer;
  let a: PostgresStore;
  let b: PostgresStore;
  const seenByB: Array<{ change: StoreChange; at: number }> = [];

  beforeAll(async () => {
    server = await startPostgres();
    const url = await server.createDatabase();
    a = await openPostgresStore({ url });
    b = await openPostgresStore({ url });
    b.onChange((change) => seenByB.push({ change, at: performance.now() }));
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
    await a.triggers.enqueue(aTrigger({ key: 'wake-1' }), [], 1000);
    const woke = await until(() => seenByB.find((seen) => seen.change === 'triggers'), 'replica B to be told about the trigger');
    console.log(`replica B woke ${(woke.at - storedAt).toFixed(1)} ms after replica A's enqueue was called`);

    await a.outbox.add([anOutboxRow('wake-out-1')], 1000);
    await until(() => seenByB.find((seen) => seen.change === 'outbox'), 'replica B to be told about the outbox row');
  });

  it('says nothing for what changed nothing: a repeated trigger key, a guarded write that lost', async () => {
    seenByB.length = 0;
    await a.triggers.enqueue(aTrigger({ key: 'wake-2' }), [], 1000);
    await until(() => seenByB.find((seen) => seen.change === 'triggers'), 'the first notification');
    // A marker after the no-ops: everything B hears before it came from the no-ops.
    seenByB.length = 0;
    await a.triggers.enqueue(aTrigger({ key: 'wake-2' }), [anOutboxRow('never-added')], 2000);
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
    await a.triggers.enqueue(aTrigger({ key: 'wake-3' }), [], 3000);
    await until(() => seenByB.find((seen) => seen.change === 'triggers'), 'a notification on the new connection');
  });
});
