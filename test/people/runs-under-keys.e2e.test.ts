/**
 * Runs under each person's key, end to end: real Bolt receiving signed Slack
 * events, the fake Slack Web API, the service on its SQLite file, and the emulator in owner
 * visibility (a key sees, follows up and cancels only the runs it created, and records each run's
 * creator). Three people: Alice and Bob connected with their own keys, Carol not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Attribution } from '../../src/config/types.js';
import { creatorUidFor } from '../../src/emulator/keys.js';
import { KeyBox } from '../../src/people/key-box.js';
import { keyRefusal } from '../../src/people/key-refusals.js';
import { PersonKeys } from '../../src/people/person-keys.js';
import { messageKey } from '../../src/slack/normalise.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { appMention } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { type SlackBridge, startSlackBridge } from '../helpers/slack-bridge.js';

const BRIDGE_SECRET = 'bridge-secret-'.padEnd(48, 'r');
const PUBLIC_URL = 'https://bridge.example.com';
const SERVICE_KEY = 'svc_service_key_0123456789abcdefSv1c';
const ALICE_KEY = 'wk_personal_alice_c0ffee0123456789Al1c';
const BOB_KEY = 'wk_personal_bob_deadbeef9876543210B0b2';
const ALICE = 'U0ALICE001';
const BOB = 'U0BOB00002';
const CAROL = 'U0CAROL003';
const CHANNEL = SLACK_IDS.channel;

/** One service with its fakes, under one `people.attribution`. */
interface World extends SlackBridge {
  /** A second connection on the service's SQLite file (as the console would store keys). */
  store: SqliteStore;
  logger: CapturingLogger;
}

async function startWorld(attribution: Attribution): Promise<World> {
  const logger = new CapturingLogger();
  const bridge = await startSlackBridge({
    apiKey: SERVICE_KEY,
    emulatorOptions: { visibility: 'owner' },
    env: { AGENT_BRIDGE_SECRET: BRIDGE_SECRET, PUBLIC_URL, LOG_LEVEL: 'debug' },
    yaml: ['tracker:', '  interval: 1s', 'people:', `  attribution: ${attribution}`].join('\n'),
    logger,
  });
  const store = openSqliteStore({ path: join(bridge.cwd, 'bridge.db') });
  const people = new PersonKeys(store.personKeys, new KeyBox(BRIDGE_SECRET));
  await people.connect(ALICE, ALICE_KEY, Date.now());
  await people.connect(BOB, BOB_KEY, Date.now());
  return { ...bridge, store, logger };
}

async function stopWorld(world: World | undefined): Promise<void> {
  if (!world) return;
  await world.store.close();
  await world.stop();
}

const until = <T>(world: World, find: () => T | undefined | false | Promise<T | undefined | false>, what: string) => world.until(find, what, 15_000);

/** A signed @mention by `user`: a new thread, or in `threadTs`'s thread. Returns the message's ts. */
const mention = (world: World, user: string, request: string, threadTs?: string) =>
  world.mention(request, { user, channel: CHANNEL, ...(threadTs && { thread_ts: threadTs }) });
const runOf = (world: World, ts: string) => world.runFor(CHANNEL, ts);
const creatorOf = (world: World, runId: string) => world.emulator.engine.creatorOf(runId)?.uid;
const ephemeralsTo = (world: World, user: string) => world.slack.ephemerals(CHANNEL).filter((note) => note.user === user);
/** Messages of ours in a thread (the status message and what was announced or said since). */
const threadMessages = (world: World, threadTs: string) => world.slack.messages(CHANNEL, threadTs).filter((message) => message.bot_id !== undefined);
const announcements = (world: World, threadTs: string) =>
  threadMessages(world, threadTs).filter((message) => JSON.stringify(message.metadata ?? {}).includes(':announce'));

/** Every byte the service wrote and said: its database files, its log lines and its calls to Slack. */
function everythingWritten(world: World): string {
  const files = readdirSync(world.cwd)
    .filter((name) => name.startsWith('bridge.db'))
    .map((name) => readFileSync(join(world.cwd, name)).toString('latin1'));
  return [...files, JSON.stringify(world.logger.lines), JSON.stringify(world.slack.calls)].join('\n');
}

function expectNoRawKeys(world: World): void {
  const written = everythingWritten(world);
  for (const key of [ALICE_KEY, BOB_KEY, SERVICE_KEY]) {
    expect(written).not.toContain(key);
    // Not even the part before the last 4 characters, which are all people may see.
    expect(written).not.toContain(key.slice(0, -4));
  }
}

describe('people.attribution: personal_if_connected', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld('personal_if_connected');
  });
  afterAll(() => stopWorld(world));

  it('creates, follows up and cancels each run with its asker’s key, and announces each end once', async () => {
    const asks = [
      { user: ALICE, creator: creatorUidFor(ALICE_KEY), personalKeyOwner: ALICE },
      { user: BOB, creator: creatorUidFor(BOB_KEY), personalKeyOwner: BOB },
      { user: CAROL, creator: creatorUidFor(SERVICE_KEY), personalKeyOwner: undefined },
    ];
    const threads = await Promise.all(asks.map((ask) => mention(world, ask.user, `Fix the flaky test for ${ask.user}`)));
    const runs = await Promise.all(threads.map((ts) => until(world, () => runOf(world, ts), `the run of ${ts}`)));
    runs.forEach((run, index) => expect(creatorOf(world, run.run_id)).toBe(asks[index]?.creator));
    for (const [index, run] of runs.entries()) {
      const tracked = await until(world, () => world.store.trackedRuns.get(run.run_id), 'the tracked run');
      expect(tracked.personalKeyOwner).toBe(asks[index]?.personalKeyOwner);
    }

    // Follow-ups: in owner visibility the run API takes one only with the key that created the run.
    await Promise.all(threads.map((ts, index) => mention(world, asks[index]?.user ?? '', `also check the retry path ${index}`, ts)));
    for (const [index, run] of runs.entries()) {
      await until(world, () => world.emulator.engine.followups(run.run_id).length === 1 || undefined, `the follow-up of ${asks[index]?.user}`);
    }

    // Carol (no key: the service's) replies in Alice's thread: the run API does not show Alice's run to
    // that key, and the thread is told why rather than that the run is gone.
    await mention(world, CAROL, 'and the docs too', threads[0]);
    const hidden = `Your reply was not delivered: run ${runs[0]?.run_id} was started under another person’s key, and the run API shows it only to that key.`;
    await until(
      world,
      () => threadMessages(world, threads[0] ?? '').find((message) => JSON.stringify(message).includes(hidden)),
      'why Carol’s reply was not delivered',
    );
    expect(world.emulator.engine.followups(runs[0]?.run_id ?? '')).toHaveLength(1);

    // Stops, each by the person who asked: the run API cancels each only under its creator's key.
    await Promise.all(threads.map((ts, index) => mention(world, asks[index]?.user ?? '', 'stop', ts)));
    for (const run of runs) await until(world, () => world.emulator.engine.get(run.run_id)?.state === 'CANCELLED' || undefined, `${run.run_id} cancelled`);
    // The tracker watches each key's runs with that key: every end is announced, once.
    for (const ts of threads) await until(world, () => announcements(world, ts).length === 1 || undefined, `the CANCELLED announcement in ${ts}`);
    await world.service.stop().then(
      () => undefined,
      () => undefined,
    );
    for (const ts of threads) expect(announcements(world, ts)).toHaveLength(1);
    expect(ephemeralsTo(world, ALICE)).toEqual([]);
    expect(ephemeralsTo(world, CAROL)).toEqual([]);

    const alice = await new PersonKeys(world.store.personKeys, new KeyBox(BRIDGE_SECRET)).summary(ALICE);
    expect(alice?.lastUsedAt).not.toBeNull();
    expectNoRawKeys(world);
  });
});

describe('people.attribution: personal_required', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld('personal_required');
  });
  afterAll(() => stopWorld(world));

  it('refuses someone without a key privately, with how to connect one, and starts nothing', async () => {
    const ts = await mention(world, CAROL, 'Upgrade the linter');
    const note = await until(world, () => ephemeralsTo(world, CAROL)[0], 'the private note to Carol');
    expect(note.text).toContain('No run was started');
    expect(note.text).toContain('`/agent connect` in Slack');
    expect(note.text).toContain(`${PUBLIC_URL}/console/`);
    // The thread's status message says the run could not start, and why, without naming any key.
    await until(
      world,
      () => world.slack.callsTo('chat.update').find((call) => JSON.stringify(call.args).includes('no personal API key connected')),
      'the status edit',
    );
    const trigger = await until(
      world,
      async () => (await world.store.triggers.getByKey(messageKey(CHANNEL, ts)))?.state === 'ignored' || undefined,
      'the trigger ended',
    );
    expect(trigger).toBe(true);
    expect(world.emulator.engine.list({}).runs).toEqual([]);

    // A connected person's request starts a run under their key.
    const alice = await mention(world, ALICE, 'Upgrade the formatter');
    const run = await until(world, () => runOf(world, alice), 'Alice’s run');
    expect(creatorOf(world, run.run_id)).toBe(creatorUidFor(ALICE_KEY));
    expect(ephemeralsTo(world, ALICE)).toEqual([]);
    expect(ephemeralsTo(world, CAROL)).toHaveLength(1);
  });

  it('a key revoked mid-run: its owner is told privately, the thread is told, nothing doubles', async () => {
    const ts = await mention(world, BOB, 'Rename the billing module');
    const run = await until(world, () => runOf(world, ts), 'Bob’s run');
    expect(creatorOf(world, run.run_id)).toBe(creatorUidFor(BOB_KEY));
    await until(world, () => world.store.trackedRuns.get(run.run_id), 'the tracked run');

    world.emulator.keys.revoke(BOB_KEY);
    // The tracker, watching Bob's run with Bob's key, is refused: Bob and the thread are told it went dark.
    const lost = 'I can no longer follow this run: the run API refused the personal API key of the person who started it';
    await until(
      world,
      () => ephemeralsTo(world, BOB).find((message) => message.text.startsWith('I can no longer follow your run “Rename the billing module”')),
      'Bob told of the lost run',
    );
    await until(world, () => threadMessages(world, ts).find((message) => JSON.stringify(message).includes(lost)), 'the thread told of the lost run');
    const reply = appMention({ user: BOB, channel: CHANNEL, thread_ts: ts, text: `<@${SLACK_IDS.botUser}> also rename its tests` });
    expect((await world.post(reply)).status).toBe(200);

    const note = await until(world, () => ephemeralsTo(world, BOB).find((message) => message.text.startsWith('Your message')), 'the private note to Bob');
    expect(note.text).toContain('Your message was not sent to the run');
    expect(note.text).toContain('refused your personal API key (401)');
    expect(note.text).toContain('`/agent connect`');
    const said = 'The follow-up was not sent: the run API refused the personal API key of the person who asked.';
    await until(world, () => threadMessages(world, ts).find((message) => JSON.stringify(message).includes(said)), 'the thread told');
    const trigger = await until(
      world,
      async () => {
        const stored = await world.store.triggers.getByKey(messageKey(CHANNEL, reply['ts'] as string));
        return stored?.state === 'failed' ? stored : undefined;
      },
      'the follow-up given up on',
    );
    expect(trigger.attempts).toBe(1);
    expect(world.emulator.engine.followups(run.run_id)).toEqual([]);
    const bob = await new PersonKeys(world.store.personKeys, new KeyBox(BRIDGE_SECRET)).summary(BOB);
    expect(await keyRefusal(world.store.settings, BOB, bob?.connectedAt ?? Infinity)).toMatchObject({ status: 401 });

    // A stop and a new request with the refused key: neither happens, and each is said once.
    await mention(world, BOB, 'stop', ts);
    const stopSaid = 'The run was not stopped: the run API refused the personal API key of the person who asked.';
    await until(world, () => threadMessages(world, ts).find((message) => JSON.stringify(message).includes(stopSaid)), 'the thread told of the stop');
    expect(world.emulator.engine.get(run.run_id)?.state).not.toBe('CANCELLED');
    const again = await mention(world, BOB, 'Rename the payments module');
    await until(
      world,
      () => ephemeralsTo(world, BOB).find((message) => message.text.startsWith('No run was started: the run API refused')),
      'the note on the start',
    );
    await until(
      world,
      () => world.slack.callsTo('chat.update').find((call) => JSON.stringify(call.args).includes('refused the personal API key')),
      'the start’s status edit',
    );
    expect(runOf(world, again)).toBeUndefined();

    // Slack delivers the same event again: it is recognised, and nobody is told twice.
    expect((await world.post(reply)).status).toBe(200);
    await world.service.stop();
    expect(ephemeralsTo(world, BOB).map((message) => message.text.split(':')[0])).toEqual([
      'I can no longer follow your run “Rename the billing module”',
      'Your message was not sent to the run',
      'The run was not stopped',
      'No run was started',
    ]);
    // Every tick since was refused too: still one message each.
    expect(threadMessages(world, ts).filter((message) => JSON.stringify(message).includes(said))).toHaveLength(1);
    expect(threadMessages(world, ts).filter((message) => JSON.stringify(message).includes(lost))).toHaveLength(1);
    expectNoRawKeys(world);
  });
});
