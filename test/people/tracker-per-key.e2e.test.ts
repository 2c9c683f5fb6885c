/**
 * The tracker follows runs only their creator can see, end to end: the service
 * (real Bolt receiving signed Slack events, the fake Slack Web API, its SQLite file, the tracker
 * ticking every second) against the emulator in owner visibility, where the service key sees none
 * of the runs people started with their own keys. Two people's runs are tracked to their ends, each
 * state announced once in its thread, and the emulator's request log shows who listed what.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creatorUidFor, type RequestLogEntry, type RunningEmulator } from '../../src/emulator/index.js';
import { KeyBox } from '../../src/people/key-box.js';
import { PersonKeys } from '../../src/people/person-keys.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { type SlackBridge, startSlackBridge } from '../helpers/slack-bridge.js';

const BRIDGE_SECRET = 'bridge-secret-'.padEnd(48, 't');
const SERVICE_KEY = 'svc_service_key_tracker_0123456789Sv1c';
const ANN_KEY = 'wk_personal_ann_tracker_0123456789An1x';
const BEN_KEY = 'wk_personal_ben_tracker_9876543210Be2y';
const ANN = 'U0ANN00001';
const BEN = 'U0BEN00002';
/** Connects no key: her run is the service key's, and keeps the tracker ticking after the others end. */
const CAROL = 'U0CAROL003';
const CHANNEL = SLACK_IDS.channel;

let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator;
let store: SqliteStore;

beforeAll(async () => {
  bridge = await startSlackBridge({
    apiKey: SERVICE_KEY,
    emulatorOptions: { visibility: 'owner' },
    env: { AGENT_BRIDGE_SECRET: BRIDGE_SECRET },
    yaml: ['tracker:', '  interval: 1s', 'people:', '  attribution: personal_if_connected'].join('\n'),
  });
  ({ slack, emulator } = bridge);
  // A second connection on the service's file: the keys as the console would store them.
  store = openSqliteStore({ path: join(bridge.cwd, 'bridge.db') });
  const people = new PersonKeys(store.personKeys, new KeyBox(BRIDGE_SECRET));
  await people.connect(ANN, ANN_KEY, Date.now());
  await people.connect(BEN, BEN_KEY, Date.now());
});

afterAll(async () => {
  await store?.close();
  await bridge?.stop();
});

const until: SlackBridge['until'] = (find, what) => bridge.until(find, what, 15_000);
const mention = (user: string, request: string) => bridge.mention(request, { user, channel: CHANNEL });
const runOf = (ts: string) => bridge.runFor(CHANNEL, ts);
const ours = (ts: string) => slack.messages(CHANNEL, ts).filter((message) => message.bot_id !== undefined);
/** The announcements in a thread (BLOCKED and ends), by the state each names. */
const announced = (ts: string) => ours(ts).filter((message) => JSON.stringify(message.metadata ?? {}).includes(':announce'));

async function requests(): Promise<RequestLogEntry[]> {
  return ((await (await fetch(`${emulator.url}/_emulator/requests`)).json()) as { requests: RequestLogEntry[] }).requests;
}

/** List requests (GET /agent/runs) so far: one per key with tracked runs at each tick. */
async function lists(): Promise<RequestLogEntry[]> {
  return (await requests()).filter((entry) => entry.method === 'GET' && entry.path === '/api/v1/agent/runs');
}

/** Waits until the tracker listed `n` more times. */
async function listedMore(n: number, what: string): Promise<void> {
  const before = (await lists()).length;
  await until(async () => (await lists()).length >= before + n || undefined, what);
}

/** Waits until the service stored `state` for the run (the tracker observed it). */
const observed = (runId: string, state: string) =>
  until(async () => (await store.trackedRuns.get(runId))?.state === state || undefined, `${runId} observed ${state}`);

describe('the tracker with runs only their creator can see', () => {
  it('follows each person’s runs with their own key to the end and announces each state once', async () => {
    const annTs = await mention(ANN, 'Upgrade the test runner');
    const benTs = await mention(BEN, 'Tidy the changelog');
    const carolTs = await mention(CAROL, 'Watch the nightly build');
    const ann = await until(() => runOf(annTs), 'Ann’s run');
    const ben = await until(() => runOf(benTs), 'Ben’s run');
    const carol = await until(() => runOf(carolTs), 'Carol’s run');
    expect(emulator.engine.creatorOf(carol.run_id)?.uid).toBe(creatorUidFor(SERVICE_KEY));
    expect(emulator.engine.creatorOf(ann.run_id)?.uid).toBe(creatorUidFor(ANN_KEY));
    expect(emulator.engine.creatorOf(ben.run_id)?.uid).toBe(creatorUidFor(BEN_KEY));
    // The service key sees only Carol's run: only their creators' keys can follow Ann's and Ben's.
    const hidden = await fetch(`${emulator.baseUrl}/agent/runs`, { headers: { authorization: `Bearer ${SERVICE_KEY}` } });
    expect(((await hidden.json()) as { runs: Array<{ run_id: string }> }).runs.map((run) => run.run_id)).toEqual([carol.run_id]);
    await until(async () => (await store.trackedRuns.get(ann.run_id))?.personalKeyOwner === ANN || undefined, 'Ann’s run tracked under her key');
    await until(async () => (await store.trackedRuns.get(ben.run_id))?.personalKeyOwner === BEN || undefined, 'Ben’s run tracked under his key');

    emulator.engine.drive(carol.run_id, 'INPROGRESS');
    emulator.engine.drive(ann.run_id, 'INPROGRESS');
    emulator.engine.drive(ben.run_id, 'BLOCKED', { status_message: 'Which changelog format?' });
    await observed(carol.run_id, 'INPROGRESS');
    await observed(ann.run_id, 'INPROGRESS');
    await observed(ben.run_id, 'BLOCKED');
    await until(() => announced(benTs).length === 1 || undefined, 'Ben’s BLOCKED announced');

    emulator.engine.drive(ann.run_id, 'SUCCEEDED');
    emulator.engine.drive(ben.run_id, 'FAILED', { status_message: 'No changelog found' });
    await observed(ann.run_id, 'SUCCEEDED');
    await observed(ben.run_id, 'FAILED');
    await until(() => announced(annTs).length === 1 && announced(benTs).length === 2 && true, 'both ends announced');

    // A few more ticks: nothing is announced again, and nothing was ever fetched with a key that cannot see it.
    await listedMore(3, 'more ticks');
    expect(announced(annTs)).toHaveLength(1);
    expect(announced(benTs)).toHaveLength(2);
    for (const ts of [annTs, benTs]) expect(JSON.stringify(ours(ts))).not.toContain('no longer knows run');
    expect(await store.trackedRuns.get(ann.run_id)).toMatchObject({ tracked: false, state: 'SUCCEEDED' });
    expect(await store.trackedRuns.get(ben.run_id)).toMatchObject({ tracked: false, state: 'FAILED' });

    const log = await requests();
    expect(log.filter((entry) => entry.status === 404)).toEqual([]);
    // Each person's runs were listed with their own key (the emulator records the key's uid, never the key).
    const listedBy = new Set((await lists()).map((entry) => entry.creator));
    expect(listedBy).toContain(creatorUidFor(ANN_KEY));
    expect(listedBy).toContain(creatorUidFor(BEN_KEY));
    // Once their runs ended, the people's keys are no longer listed: only the service key's list (Carol's run) remains.
    const tail = (await requests()).length;
    await listedMore(2, 'later ticks');
    const later = (await requests()).slice(tail).filter((entry) => entry.method === 'GET');
    expect(new Set(later.map((entry) => entry.creator))).toEqual(new Set([creatorUidFor(SERVICE_KEY)]));
  });
});
