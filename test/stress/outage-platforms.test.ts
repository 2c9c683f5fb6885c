/**
 * Slack and Linear have an outage while runs start, progress and end: the fake
 * Slack Web API answers 429 with Retry-After, 500, and once takes longer than the client waits (the
 * message lands, its answer is lost); the fake Linear GraphQL API answers 429 `ratelimited` with
 * Retry-After, 500, and slowly. Every message owed is delivered — none lost, none twice — and each
 * thread and issue shows its story in order: status message before its edits, edits in state order,
 * the end message last. Secrets are scanned across everything at the end (item 5).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceLine } from '../../src/core/ports/triggers.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { messageKey } from '../../src/slack/normalise.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { startFakeLinearApi, type FakeLinearApi, type FakeLinearIssue } from '../fakes/linear-api.js';
import { startFakeSlackApi, type FakeSlackApi } from '../fakes/slack-api.js';
import { postSlackEvent } from '../fakes/slack-signing.js';
import { LINEAR_IDS, labelAdded, linearDelivery } from '../fixtures/linear/index.js';
import { appMention, eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { startBridge } from '../helpers/start-bridge.js';
import { newIssue } from '../linear/linear-harness.js';
import { isMonotonic, linearIssueStory, linearStateOf, sleep, slackKeyOf, slackStateOf, slackThreadStory, until } from './outage-helpers.js';
import { SECRETS, SecretScanner, captureConsole, endConsoleCapture, scanningLogger, secretEnv } from './secrets-scan.js';

const CHANNEL = SLACK_IDS.channel;
const { agent, bug } = LINEAR_IDS.labels;
const SLACK_THREADS = 4;
const LINEAR_ISSUES = 3;

const scanner = new SecretScanner();
/** Console lines written past the logger (scanned too); see the known bug in secrets-leaks.test.ts. */
const stray = captureConsole(scanner);
afterAll(() => stray.restore());
const logs = new CapturingLogger();
let slack: FakeSlackApi;
let linear: FakeLinearApi;
let emulator: RunningEmulator;
let service: RunningService;

beforeAll(async () => {
  slack = await startFakeSlackApi({ token: SECRETS.SLACK_BOT_TOKEN });
  slack.setChannel(CHANNEL, { name: 'dev' });
  slack.setUser(SLACK_IDS.user, { display_name: 'ada' });
  linear = await startFakeLinearApi({ authorization: SECRETS.LINEAR_API_KEY, labels: [agent, bug] });
  emulator = await startEmulator({ apiKey: SECRETS.AGENT_API_KEY, port: 0, timings: { queuedMs: 150, pendingMs: 150, claimedMs: 150, workMs: 500 } });
  ({ service } = await startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: SECRETS.AGENT_API_KEY },
    env: secretEnv(slack.url, linear.url),
    yaml: 'tracker:\n  interval: 1s\nlinear:\n  labels:\n    agent: {}\n  teams: [ENG]\n',
    logger: scanningLogger(scanner, logs),
  }));
});
afterAll(async () => {
  await service?.stop();
  await emulator?.close();
  await slack?.close();
  await linear?.close();
});

describe('Slack and Linear outages while runs start, progress and end', () => {
  it('retries every delivery: none lost, none doubled, each thread and issue in order', async () => {
    const started = Date.now();
    // Slack: rate limits, server errors, one answer lost after the message landed (client timeout 10 s).
    slack.failNext('reactions.add', { status: 429, retryAfter: 1, count: 3 });
    slack.failNext('chat.postMessage', { status: 500, count: 3 });
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 1, count: 3 });
    slack.failNext('chat.postMessage', { delayMs: 10_500 });
    slack.failNext('chat.update', { status: 500, count: 4 });
    slack.failNext('chat.update', { status: 429, retryAfter: 1, count: 2 });
    slack.failNext('reactions.remove', { status: 503, count: 2 });
    // Linear: rate limits, server errors, slow answers (within the client's 10 s).
    linear.failNext('createComment', { status: 429, type: 'ratelimited', retryAfter: 1, count: 3 });
    linear.failNext('createComment', { status: 500, type: 'internal error', count: 2 });
    linear.failNext('createComment', { delayMs: 1_500, count: 2 });
    linear.failNext('updateComment', { status: 500, type: 'internal error', count: 3 });
    linear.failNext('updateComment', { status: 429, type: 'ratelimited', retryAfter: 1, count: 2 });
    linear.failNext('updateComment', { delayMs: 1_000, count: 2 });
    linear.failNext('AgentBridgeIssue', { status: 503, count: 2 });

    const threads: Array<{ ts: string; key: string }> = [];
    const issues: FakeLinearIssue[] = [];
    for (let index = 0; index < Math.max(SLACK_THREADS, LINEAR_ISSUES); index++) {
      if (index < SLACK_THREADS) {
        const event = appMention({ channel: CHANNEL, text: `<@${SLACK_IDS.botUser}> Task ${index}: tidy the module ${index}` });
        const response = await postSlackEvent(`${service.url}/slack/events`, SECRETS.SLACK_SIGNING_SECRET, eventCallback(event));
        scanner.scan('http answer body', await response.text());
        expect(response.status).toBe(200);
        threads.push({ ts: event['ts'] as string, key: messageKey(CHANNEL, event['ts'] as string) });
      }
      if (index < LINEAR_ISSUES) {
        const { issue, data } = newIssue(linear, `Issue task ${index}`);
        const { body, headers } = linearDelivery(SECRETS.LINEAR_WEBHOOK_SECRET, labelAdded(agent, [bug], data));
        const response = await fetch(`${service.url}/linear/webhook`, { method: 'POST', headers, body });
        scanner.scan('http answer body', await response.text());
        expect(response.status).toBe(200);
        issues.push(issue);
      }
    }

    const doneInSlack = (ts: string) =>
      slackThreadStory(slack, CHANNEL, ts).posts.some((call) => String(call.args['text']).includes('✅ Done')) &&
      slack.reactions(CHANNEL, ts).join() === 'white_check_mark';
    const doneInLinear = (issue: FakeLinearIssue) => linear.comments(issue.id).some((comment) => comment.body.includes('✅ Done'));
    await until(() => threads.every(({ ts }) => doneInSlack(ts)) && issues.every(doneInLinear), 'every thread and issue to show its end', 60_000, 200);
    const elapsed = Date.now() - started;
    // Let late duplicates, if any, show themselves.
    await sleep(1_500);

    const runs = emulator.engine.list({ limit: 1_000 }).runs;
    expect(runs).toHaveLength(SLACK_THREADS + LINEAR_ISSUES);
    expect(runs.every((run) => run.state === 'SUCCEEDED')).toBe(true);

    for (const { ts, key } of threads) {
      expect(runs.filter((run) => run.prompt?.includes(referenceLine(key)))).toHaveLength(1);
      // None doubled: the thread holds each of our messages once (by the key in its metadata).
      const stored = slack.messages(CHANNEL, ts).filter((message) => message.metadata?.event_type === 'agent_bridge');
      const storedKeys = stored.map((message) => String(message.metadata?.event_payload['key']));
      expect(new Set(storedKeys).size, `a message posted twice in ${ts}: ${storedKeys.join(', ')}`).toBe(storedKeys.length);
      expect(stored.filter((message) => message.text.includes('✅ Done'))).toHaveLength(1);
      // One status message: the received one, never replaced.
      expect(storedKeys.filter((storedKey) => storedKey.startsWith('received:'))).toHaveLength(1);
      expect(storedKeys.filter((storedKey) => storedKey.includes(':announce'))).toHaveLength(1);

      // In order: 👀, the status message, its edits in state order, the end message last, then ✅.
      const story = slackThreadStory(slack, CHANNEL, ts);
      const statusPost = story.posts.find((call) => slackKeyOf(call)?.startsWith('received:'));
      const statusTs = String((statusPost?.response as { ts?: unknown } | undefined)?.ts);
      const edits = story.edits.filter((call) => call.args['ts'] === statusTs);
      expect(edits.length).toBeGreaterThanOrEqual(1);
      expect(story.all[0]?.method).toBe('reactions.add');
      expect(statusPost!.seq).toBeLessThan(edits[0]!.seq);
      const states = edits.map(slackStateOf).filter((state): state is string => state !== undefined);
      expect(isMonotonic(states), `edits out of order: ${states.join(' → ')}`).toBe(true);
      expect(states.at(-1)).toBe('SUCCEEDED');
      const writes = story.all.filter((call) => !call.method.startsWith('reactions.'));
      expect(String(writes.at(-1)?.args['text'])).toContain('✅ Done');
      expect(slack.reactions(CHANNEL, ts)).toEqual(['white_check_mark']);
    }

    for (const issue of issues) {
      expect(runs.filter((run) => run.title?.startsWith(`${issue.identifier}:`))).toHaveLength(1);
      const comments = linear.comments(issue.id);
      expect(comments.filter((comment) => comment.body.includes('✅ Done'))).toHaveLength(1);
      expect(comments.filter((comment) => comment.body.startsWith('**agent-bridge** · '))).toHaveLength(1);
      expect(comments).toHaveLength(2);
      const story = linearIssueStory(linear, issue.id);
      expect(story[0]?.op).toBe('create');
      const start = story[0]!.commentId;
      const states = story
        .filter((step) => step.op === 'update' && step.commentId === start)
        .map((step) => linearStateOf(step.body))
        .filter((state): state is string => state !== undefined);
      expect(states.length).toBeGreaterThanOrEqual(1);
      expect(isMonotonic(states), `edits out of order: ${states.join(' → ')}`).toBe(true);
      expect(states.at(-1)).toBe('SUCCEEDED');
      expect(story.at(-1)?.op).toBe('create');
      expect(story.at(-1)?.body).toContain('✅ Done');
    }

    // Nothing left undelivered, nothing given up; every injected failure was met.
    const outbox = await service.store.outbox.counts();
    expect(outbox).toMatchObject({ pending: 0, failed: 0 });
    const slackFailed = slack.calls.filter((call) => call.status !== 200).length;
    const linearFailed = linear.calls.filter((call) => call.status !== 200).length;
    expect(slackFailed).toBe(3 + 3 + 3 + 4 + 2 + 2);
    expect(linearFailed).toBe(3 + 2 + 3 + 2 + 2);
    const retries = logs.lines.filter(
      (line) => line.msg === 'outbox delivery failed; will retry' || line.msg === 'outbox delivery threw an unexpected error; will retry',
    );
    const unexpected = logs.lines.filter((line) => line.msg === 'outbox delivery threw an unexpected error; will retry').length;
    const codes = new Map<string, number>();
    for (const line of retries) {
      const code = typeof line.fields['code'] === 'string' ? line.fields['code'] : 'unknown';
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
    const health = await fetch(`${service.url}/healthz`);
    scanner.scan('http answer body', await health.text());
    expect(health.status).toBe(200);
    scanner.scanRuns(emulator.engine);
    console.log(
      `[outage-platforms] ${SLACK_THREADS} Slack threads + ${LINEAR_ISSUES} Linear issues; injected failures met: Slack ${slackFailed} (429/500/503) + 1 lost answer, Linear ${linearFailed} (429/500/503) + 4 slow; ` +
        `outbox retries ${retries.length} (${[...codes.entries()].map(([code, count]) => `${code} ${count}`).join(', ')}; unexpected ${unexpected}); ` +
        `all delivered in ${elapsed} ms, none doubled, order kept; outbox ${JSON.stringify(outbox)}; Slack calls ${slack.calls.length}, Linear calls ${linear.calls.length}`,
    );
  }, 90_000);
});

describe('secrets (item 5) across this file', () => {
  it('no secret in any log line, Slack call, Linear call, run or HTTP answer', () => {
    scanner.scanSlack(slack);
    scanner.scanLinear(linear);
    endConsoleCapture('outage-platforms', scanner, stray);
    scanner.assertClean();
  });
});
