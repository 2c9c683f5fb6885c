import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { startFakeJiraApi, type FakeJiraApi } from '../fakes/jira-api.js';
import { jiraDelivery, labelsChanged, type Json } from '../fixtures/jira/webhooks.js';
import { childWorkspace, startServiceChild, type ChildWorkspace } from '../helpers/service-child.js';
import type { RunningCli } from '../helpers/spawn-cli.js';
import { until } from '../helpers/until.js';
import { JIRA_EMAIL, JIRA_SECRET, JIRA_TOKEN, newIssue } from '../jira/jira-harness.js';

/*
 * Crash windows of docs/architecture.md §5 for a Jira-started run: the real service
 * in a child process, killed with SIGKILL at the worst moments and restarted on the same database,
 * against the fake Jira REST v3. Exactly one run per label, and on the issue one start comment and
 * one end comment — Jira takes no client-chosen comment id, so this is the comment mark at work.
 */

const API_KEY = 'jira-crash-key-0123456789';
let emulator: RunningEmulator;
let jira: FakeJiraApi;
const children: RunningCli[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, timings: { queuedMs: 30, pendingMs: 30, claimedMs: 30, workMs: 200 } });
  jira = await startFakeJiraApi({ email: JIRA_EMAIL, apiToken: JIRA_TOKEN });
});
afterAll(async () => {
  await emulator.close();
  await jira.close();
});
afterEach(async () => {
  jira.onAnswer(undefined);
  await Promise.all(children.splice(0).map((child) => child.stop('SIGKILL')));
  emulator.engine.reset();
});

const workspace = () => childWorkspace('agent-bridge-jira-crash-', 'tracker:\n  interval: 1s\njira:\n  labels:\n    agent: {}\n');

async function startChild(space: ChildWorkspace, extra: Record<string, string> = {}): Promise<{ child: RunningCli; url: string }> {
  const child = startServiceChild(
    space.dir,
    { baseUrl: emulator.baseUrl, apiKey: API_KEY },
    { JIRA_BASE_URL: jira.url, JIRA_EMAIL, JIRA_API_TOKEN: JIRA_TOKEN, JIRA_WEBHOOK_SECRET: JIRA_SECRET, ...extra },
  );
  children.push(child);
  const ready = await child.waitFor(/child ready (\S+)/, 30_000);
  return { child, url: ready[1] ?? '' };
}

const deliver = async (url: string, payload: Json, deliveryId?: string) => {
  const { body, headers } = jiraDelivery(JIRA_SECRET, payload, deliveryId ? { deliveryId } : {});
  return (await fetch(`${url}/jira/webhook`, { method: 'POST', headers, body })).status;
};
const runsFor = (key: string) => emulator.engine.list({}).runs.filter((run) => run.title?.startsWith(`${key}:`));
const ours = (key: string) =>
  jira
    .comments(key)
    .filter((comment) => comment.author.accountId === jira.myself.accountId)
    .map((comment) => jira.text(comment.body));

describe('a Jira-started run across crashes', { timeout: 90_000 }, () => {
  it('a crash after the run API created the run, before its id was stored: one run, one start comment, one end comment', async () => {
    const space = workspace();
    const issue = { ...newIssue(jira, 'Crash after create'), labels: ['agent'] };
    const first = await startChild(space, { CRASH_AFTER_CREATE: '1' });
    const delivery = labelsChanged(issue, []);
    expect(await deliver(first.url, delivery, 'crash-create-1')).toBe(200);
    expect(await first.child.exited).toMatchObject({ signal: 'SIGKILL' });
    expect(runsFor(issue.key)).toHaveLength(1);

    const second = await startChild(space);
    // Jira retries what it did get a 200 for only by hand; a redelivery under the same id is nothing new.
    expect(await deliver(second.url, delivery, 'crash-create-1')).toBe(200);
    await until(() => ours(issue.key).some((text) => text.startsWith('✅')), 'the end comment', 30_000);
    await second.child.stop('SIGTERM');
    expect(runsFor(issue.key)).toHaveLength(1);
    expect(ours(issue.key).filter((text) => text.startsWith('agent-bridge ·'))).toHaveLength(1);
    expect(ours(issue.key).filter((text) => text.startsWith('✅'))).toHaveLength(1);
    const store = openSqliteStore({ path: space.db });
    expect((await store.outbox.counts()).pending).toBe(0);
    await store.close();
  });

  it('a crash right after Jira took a comment, before the outbox recorded it: the retry finds it, nothing is posted twice', async () => {
    const space = workspace();
    const issue = { ...newIssue(jira, 'Crash after comment'), labels: ['agent'] };
    const first = await startChild(space);
    let killed = false;
    jira.onAnswer(async (call) => {
      if (killed || call.method !== 'POST' || call.path !== `/rest/api/3/issue/${issue.key}/comment`) return;
      killed = true;
      first.child.child.kill('SIGKILL');
      await first.child.exited;
    });
    expect(await deliver(first.url, labelsChanged(issue, []))).toBe(200);
    expect(await first.child.exited).toMatchObject({ signal: 'SIGKILL' });
    expect(ours(issue.key)).toHaveLength(1);

    await startChild(space);
    await until(() => ours(issue.key).some((text) => text.startsWith('✅')), 'the end comment', 30_000);
    expect(runsFor(issue.key)).toHaveLength(1);
    expect(ours(issue.key).filter((text) => text.startsWith('agent-bridge ·'))).toHaveLength(1);
    expect(ours(issue.key).filter((text) => text.startsWith('✅'))).toHaveLength(1);
    // The retried start comment looked for its mark before posting.
    expect(jira.callsTo('GET', `/rest/api/3/issue/${issue.key}/comment`).some((call) => call.query.get('expand') === 'properties')).toBe(true);
  });
});
