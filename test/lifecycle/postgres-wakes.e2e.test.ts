import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntakeService } from '../../src/core/intake/intake-service.js';
import { TestClock } from '../../src/core/ports/clock.js';
import { referenceLine } from '../../src/core/ports/triggers.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { POLL_MS } from '../../src/compose/work-loops.js';
import type { RunningService } from '../../src/main.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { RecordingNotifier } from '../core/recording-notifier.js';
import { cliStart } from '../helpers/cli-triggers.js';
import { postgresSkipNote, requirePostgres, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { startBridge } from '../helpers/start-bridge.js';
import { until } from '../helpers/until.js';

/*
 * Three replicas of the service on one PostgreSQL database. A trigger one replica
 * stores wakes that replica, which works it; the two others are told of it too (LISTEN/NOTIFY) and
 * must leave it to the writer rather than each make a claim that finds nothing. What no wake-up
 * reaches, a replica's poll finds: one claim per interval for triggers and one for the outbox, however
 * many workers it runs. The replicas run on a test clock that only moves when a test moves it: no poll
 * runs by itself, so every claim counted was made by a wake-up or by a poll the test let run. Claims
 * are counted per replica around the store's two claim calls (one SQL statement each).
 */
const API_KEY = 'postgres-wakes-run-api-key';
const REPLICAS = 3;
const ROUNDS = 5;
const runs = requirePostgres('wake-ups between replicas');

interface Replica {
  service: RunningService;
  /** Calls of `triggers.claimNext` and `outbox.claimNext`: what a wake-up or a poll costs. */
  claims: { triggers: number; outbox: number };
  /** Claims sent and not answered yet. */
  inFlight: number;
  /** Every change notification this replica's store was told of. */
  heard: string[];
}

describe.skipIf(!runs)(`wake-ups between replicas on PostgreSQL${postgresSkipNote()}`, { timeout: 60_000 }, () => {
  let server: PostgresServer;
  let emulator: RunningEmulator;
  let url: string;
  const clock = new TestClock(Date.now());
  const notifier = new RecordingNotifier('test');
  const replicas: Replica[] = [];
  const others: PostgresStore[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
    url = await server.createDatabase();
    // One after the other: the first migrates the new database.
    for (let index = 0; index < REPLICAS; index++) {
      const { service } = await startBridge({
        agentApi: { baseUrl: emulator.baseUrl, apiKey: API_KEY },
        env: { DATABASE_URL: url, DATABASE_PATH: '' },
        clock,
        overrides: { notifiers: [notifier] },
      });
      replicas.push(counted(service));
    }
    for (const replica of replicas) await (replica.service.store as PostgresStore).listening();
    // The first passes at start and the wake-up each listener makes once it listens are not counted.
    await settled();
    uncount();
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.service.stop()));
    await Promise.all(others.map((store) => store.close()));
    await emulator?.close();
    await server?.stop();
  });

  /** Counts the claims a replica's workers make and the notifications its store hears. */
  function counted(service: RunningService): Replica {
    const replica: Replica = { service, claims: { triggers: 0, outbox: 0 }, inFlight: 0, heard: [] };
    const count = <T>(kind: 'triggers' | 'outbox', claim: Promise<T>): Promise<T> => {
      replica.claims[kind]++;
      replica.inFlight++;
      return claim.finally(() => replica.inFlight--);
    };
    const { triggers, outbox } = service.store;
    const claimTrigger = triggers.claimNext.bind(triggers);
    const claimRow = outbox.claimNext.bind(outbox);
    triggers.claimNext = (...args) => count('triggers', claimTrigger(...args));
    outbox.claimNext = (...args) => count('outbox', claimRow(...args));
    service.store.onChange?.((change) => replica.heard.push(change));
    return replica;
  }

  const total = (replica: Replica) => replica.claims.triggers + replica.claims.outbox;
  const uncount = () => replicas.forEach((replica) => (replica.claims = { triggers: 0, outbox: 0 }));

  /** Once no claim is in flight after a few turns of the event loop: every wake-up so far has claimed. */
  async function settled(): Promise<void> {
    await until(async () => {
      for (let turn = 0; turn < 5; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
      return replicas.every((replica) => replica.inFlight === 0);
    }, 'the replicas to finish their claims');
  }

  /** Waits until every replica has heard `count` more notifications than `before`, then until their claims are done. */
  async function told(before: number[], count: number, what: string): Promise<void> {
    await until(
      () => replicas.every((replica, index) => replica.heard.length - (before[index] ?? 0) >= count),
      what,
      10_000,
      () => `heard: ${replicas.map((replica, index) => replica.heard.slice(before[index]).join(' ')).join(' | ')}`,
    );
    await settled();
  }

  const start = (key: string) => cliStart(key, `Work ${key}`);
  const store = () => (replicas[0] as Replica).service.store;
  const runsOf = (key: string) => emulator.engine.list({}).runs.filter((run) => run.prompt?.includes(referenceLine(key)));
  const deliveriesTo = (key: string) => notifier.delivered.filter((call) => call.destination === `test:${key}`);

  /** Done, one run, and every message it owes delivered once. */
  async function workedOnce(key: string): Promise<void> {
    await until(async () => (await store().triggers.getByKey(key))?.state === 'done', `trigger ${key} to be worked`);
    await until(async () => {
      const counts = await store().outbox.counts();
      return counts.pending + counts.sending === 0;
    }, `the messages of ${key} to be delivered`);
    expect(runsOf(key)).toHaveLength(1);
    const keys = deliveriesTo(key).map((call) => call.key);
    expect(keys.length).toBeGreaterThan(0);
    expect(new Set(keys).size).toBe(keys.length);
  }

  it('a trigger one replica stores costs the others no claim, though they hear of it', async () => {
    uncount();
    const [writer, ...rest] = replicas as [Replica, ...Replica[]];
    for (let round = 0; round < ROUNDS; round++) {
      const key = `wake-round-${round}`;
      const before = replicas.map((replica) => replica.heard.length);
      expect((await writer.service.intake.submit(start(key))).accepted).toBe(true);
      await workedOnce(key);
      // The trigger with its "received" message, then the run's messages: three notifications.
      await told(before, 3, `every replica to hear of ${key}`);
    }
    console.log(`claims over ${ROUNDS} triggers stored and worked by replica 0, per replica: ${replicas.map(total).join(', ')}`);
    // Every replica heard every notification; only the one that stored the work claimed.
    for (const replica of rest) expect(replica.heard.length).toBe(writer.heard.length);
    expect(rest.map(total)).toEqual(rest.map(() => 0));
    // And the writer claimed each trigger once: its wake-up's claim saw nothing else due, so it woke no
    // other worker to claim nothing, and did not claim again after working it.
    expect(writer.claims.triggers).toBe(ROUNDS);
  });

  it('an idle replica polls with one claim per interval for triggers and one for the outbox, not one per worker', async () => {
    uncount();
    await clock.advance(POLL_MS.intake);
    await settled();
    console.log(`claims in ${POLL_MS.intake} ms of idling, per replica: ${replicas.map((r) => `${r.claims.triggers} + ${r.claims.outbox}`).join(', ')}`);
    for (const replica of replicas) {
      // At least one poll of each (the safety net), at most one per interval.
      expect(replica.claims.triggers).toBe(1);
      expect(replica.claims.outbox).toBeGreaterThanOrEqual(1);
      expect(replica.claims.outbox).toBeLessThanOrEqual(POLL_MS.intake / POLL_MS.outbox);
    }
  });

  it('a trigger stored by a process that works nothing (the command line) is worked at once, once', async () => {
    const cli = await openPostgresStore({ url });
    others.push(cli);
    await new IntakeService({ store: cli, clock }).submit(start('from-the-cli'));
    // No clock moved: a wake-up, not a poll, found it.
    await workedOnce('from-the-cli');
  });

  it('a replica that leaves a trigger to its writer still picks it up on its regular poll', async () => {
    // A store that listens, as a replica's does, but whose process works nothing (say it stopped).
    const writer = await openPostgresStore({ url });
    others.push(writer);
    writer.onChange(() => {});
    await writer.listening();
    const before = replicas.map((replica) => replica.heard.length);
    await new IntakeService({ store: writer, clock }).submit(start('left-to-the-poll'));
    await told(before, 2, 'every replica to hear of the trigger and its "received" message');
    expect((await store().triggers.getByKey('left-to-the-poll'))?.state).toBe('pending');

    await clock.advance(1_000);
    await workedOnce('left-to-the-poll');
  });
});
