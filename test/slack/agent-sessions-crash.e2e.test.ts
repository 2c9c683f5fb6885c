import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { referenceLine } from '../../src/core/ports/triggers.js';
import { startEmulator, type RequestLogEntry, type RunningEmulator } from '../../src/emulator/index.js';
import { messageKey } from '../../src/slack/normalise.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { startFakeSlackApi, type FakeSlackApi } from '../fakes/slack-api.js';
import { postSlackEvent } from '../fakes/slack-signing.js';
import { agentSessionStopped, appMention, eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { childWorkspace, startServiceChild } from '../helpers/service-child.js';
import type { RunningCli } from '../helpers/spawn-cli.js';
import { until as waitFor } from '../helpers/until.js';

/*
 * A crash between the stop and the session status. The real service runs in a child process
 * (test/lifecycle/service-child.ts) with Slack over HTTP against the fake Web API; it is killed with
 * SIGKILL right after the run API took the cancel of a stop pressed in Slack — before the trigger was
 * finished and the session's `active` owed — and restarted on the same database. The run is cancelled
 * once, and its session, never left spinning, is set away from processing once.
 */

const SECRET = 'agent-sessions-crash-secret-0123';
const BOT_TOKEN = 'xoxb-0000-1111-agent-sessions-crash';
const API_KEY = 'agent-sessions-crash-key';
const CHANNEL = SLACK_IDS.channel;
let slack: FakeSlackApi;
let emulator: RunningEmulator;
const children: RunningCli[] = [];

beforeAll(async () => {
  slack = await startFakeSlackApi({ token: BOT_TOKEN });
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
});
afterAll(async () => {
  await emulator.close();
  await slack.close();
});
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.stop('SIGKILL')));
});

const until = <T>(find: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 20_000) =>
  waitFor(find, what, timeoutMs, () => `slack calls: ${slack.calls.map((call) => call.method).join(', ')}`);

async function startChild(dir: string, extra: Record<string, string> = {}): Promise<{ child: RunningCli; events: string }> {
  const child = startServiceChild(
    dir,
    { baseUrl: emulator.baseUrl, apiKey: API_KEY },
    { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: slack.url, ...extra },
  );
  children.push(child);
  const [, url] = await child.waitFor(/child ready (\S+)/, 30_000);
  return { child, events: `${url}/slack/events` };
}

describe('a crash after the run API took a stop pressed in Slack, before the session status was owed', { timeout: 90_000 }, () => {
  it('cancels the run once and sets its session away from processing once, after the restart', async () => {
    const { dir, db } = childWorkspace('agent-bridge-session-crash-', 'tracker:\n  interval: 1s\n');
    const first = await startChild(dir, { CRASH_AFTER_CANCEL: '1' });

    const ts = nextTs();
    expect(
      (await postSlackEvent(first.events, SECRET, eventCallback(appMention({ channel: CHANNEL, ts, text: `<@${SLACK_IDS.botUser}> tidy the logs` })))).status,
    ).toBe(200);
    const run = await until(() => emulator.engine.list({}).runs.find((item) => item.prompt?.includes(referenceLine(messageKey(CHANNEL, ts)))), 'the run');
    await until(() => slack.agentSession(CHANNEL, ts)?.status === 'processing', 'the session processing');

    // The stop is stored and acknowledged, then the worker's cancel kills the process.
    await postSlackEvent(first.events, SECRET, eventCallback(agentSessionStopped({ channel: CHANNEL, thread_ts: ts, user: SLACK_IDS.user }))).catch(
      () => undefined,
    );
    expect(await first.child.exited).toMatchObject({ signal: 'SIGKILL' });
    expect(emulator.engine.get(run.run_id)?.state).toBe('CANCELLED');
    expect(slack.agentSession(CHANNEL, ts)?.statuses).toEqual(['processing']);

    await startChild(dir);
    await until(() => slack.agentSession(CHANNEL, ts)?.status === 'active', 'the session away from processing after the restart');
    await until(() => slack.messages(CHANNEL, ts).some((message) => message.text === `Cancelled by <@${SLACK_IDS.user}>`), 'who stopped it');
    const store = openSqliteStore({ path: db });
    try {
      await until(async () => (await store.trackedRuns.get(run.run_id))?.tracked === false, 'the end observed');
      await until(async () => (await store.outbox.list()).every((row) => row.state === 'sent'), 'every row delivered');
    } finally {
      await store.close();
    }
    const log = (await (await fetch(`${emulator.url}/_emulator/requests`)).json()) as { requests: RequestLogEntry[] };
    const cancels = log.requests.filter((entry) => entry.method === 'POST' && entry.path === `/api/v1/agent/runs/${run.run_id}/cancel`);
    expect(cancels.filter((entry) => entry.status !== null && entry.status < 300)).toHaveLength(1);
    expect(slack.agentSession(CHANNEL, ts)?.statuses).toEqual(['processing', 'active']);
  });
});
