import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceLine } from '../../src/core/ports/triggers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { messageKey } from '../../src/slack/normalise.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { postSlackEvent } from '../fakes/slack-signing.js';
import { appMention, eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { postgresSkipNote, requirePostgres, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { callText, SLACK_SECRET, startSlackBridge, startSlackFakes, type SlackBridge, type SlackFakes } from '../helpers/slack-bridge.js';
import { until as waitFor } from '../helpers/until.js';

/*
 * The whole service on PostgreSQL, with the real Bolt, a fake Slack Web API and the
 * emulator: first one replica, then two replicas on one database taking requests in turn, as behind a
 * load balancer without stickiness — Slack's retries of an event landing on the other replica.
 */
const CHANNEL = SLACK_IDS.channel;
const runs = requirePostgres('the service on PostgreSQL');

// Readiness outcomes are reused for a few seconds (src/http/readiness.ts): its checks wait that out.
describe.skipIf(!runs)(`the service on PostgreSQL${postgresSkipNote()}`, { timeout: 60_000 }, () => {
  let server: PostgresServer;
  let fakes: SlackFakes;
  let slack: FakeSlackApi, emulator: RunningEmulator;
  let replicas: RunningService[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    fakes = await startSlackFakes({ channels: { [CHANNEL]: 'dev' }, users: { [SLACK_IDS.user]: { display_name: 'ada' } } });
    ({ slack, emulator } = fakes);
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await emulator?.close();
    await slack?.close();
    await server?.stop();
  });

  /** A replica of the service on `url`, in its own folder (nothing shared but the database). */
  async function startReplica(url: string): Promise<RunningService> {
    const { service } = await startSlackBridge({ fakes, env: { DATABASE_URL: url, DATABASE_PATH: '' }, yaml: 'tracker:\n  interval: 1s\n' });
    replicas.push(service);
    return service;
  }

  const until: SlackBridge['until'] = (find, what, timeoutMs = 15_000) =>
    waitFor(find, what, timeoutMs, () => `slack calls: ${slack.calls.map((call) => call.method).join(', ')}`);
  const runsFor = (ts: string) => emulator.engine.list({}).runs.filter((run) => run.prompt?.includes(referenceLine(messageKey(CHANNEL, ts))));
  const threadPosts = (ts: string) => slack.callsTo('chat.postMessage').filter((call) => call.args['thread_ts'] === ts);
  const updatesOf = (ts: string) => slack.callsTo('chat.update').filter((call) => call.args['ts'] === ts);
  const text = callText;

  it('one replica: a mention gets one run, the status message, every state, and the end once', async () => {
    const service = await startReplica(await server.createDatabase({ name: 'one_replica' }));
    const event = appMention({ channel: CHANNEL, text: `<@${SLACK_IDS.botUser}> Fix the flaky login test` });
    const ts = event['ts'] as string;
    expect((await postSlackEvent(`${service.url}/slack/events`, SLACK_SECRET, eventCallback(event))).status).toBe(200);

    const [run] = await until(() => runsFor(ts).length > 0 && runsFor(ts), 'the run');
    const status = await until(() => threadPosts(ts)[0], 'the status message');
    const statusTs = (status.response as unknown as { ts: string }).ts;
    emulator.engine.drive(run!.run_id, 'INPROGRESS');
    await until(() => updatesOf(statusTs).some((call) => /in progress/i.test(text(call))), 'the INPROGRESS edit');
    emulator.engine.drive(run!.run_id, 'SUCCEEDED');
    await until(() => slack.reactions(CHANNEL, ts).includes('white_check_mark'), 'the end reaction');
    await until(() => threadPosts(ts).length === 2 && threadPosts(ts), 'the end message');

    expect(runsFor(ts)).toHaveLength(1);
    expect(threadPosts(ts)).toHaveLength(2);
    // /readyz reflects the database: not ready while it refuses connections, ready again after.
    const readiness = async () => (await fetch(`${service.url}/readyz`)).status;
    expect(await readiness()).toBe(200);
    await server.admin('ALTER DATABASE one_replica ALLOW_CONNECTIONS false');
    await server.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'one_replica'");
    await until(async () => (await readiness()) === 503, 'not ready without the database');
    await server.admin('ALTER DATABASE one_replica ALLOW_CONNECTIONS true');
    await until(async () => (await readiness()) === 200, 'ready again');
    await service.stop();
    replicas = replicas.filter((replica) => replica !== service);
  });

  it('two replicas, requests to either: each mention one run and one status message, each end announced once', async () => {
    const url = await server.createDatabase({ name: 'two_replicas' });
    const [a, b] = [await startReplica(url), await startReplica(url)];
    const mentions = Array.from({ length: 12 }, (_, index) => appMention({ channel: CHANNEL, text: `<@${SLACK_IDS.botUser}> task ${index}` }));
    for (const [index, event] of mentions.entries()) {
      // The first delivery to one replica, Slack's retry of the same event to the other.
      const [first, retry] = index % 2 === 0 ? [a, b] : [b, a];
      expect((await postSlackEvent(`${first.url}/slack/events`, SLACK_SECRET, eventCallback(event))).status).toBe(200);
      expect((await postSlackEvent(`${retry.url}/slack/events`, SLACK_SECRET, eventCallback(event))).status).toBe(200);
    }
    const timestamps = mentions.map((event) => event['ts'] as string);
    await until(() => timestamps.every((ts) => runsFor(ts).length === 1 && threadPosts(ts).length === 1), 'a run and a status message for every mention');
    for (const ts of timestamps) emulator.engine.drive(runsFor(ts)[0]!.run_id, 'SUCCEEDED');
    await until(() => timestamps.every((ts) => threadPosts(ts).length === 2), 'every end announced');

    for (const ts of timestamps) {
      expect(runsFor(ts)).toHaveLength(1);
      expect(threadPosts(ts)).toHaveLength(2);
      expect(slack.callsTo('reactions.add').filter((call) => call.args['timestamp'] === ts && call.args['name'] === 'eyes')).toHaveLength(1);
    }
    // The retries were stored once: twelve triggers for twenty-four deliveries.
    expect(await a.store.triggers.countByState()).toMatchObject({ done: 12, pending: 0, working: 0 });
  });
});
