/**
 * The signed-webhook edge holds the same rules on every surface's endpoint, on the real service (Slack
 * over HTTP, Linear, GitHub, GitLab and Jira against their fakes, the emulator as the run API, a real SQLite
 * file, real sockets): a missing or malformed signature is refused before a byte of the body is read,
 * a body over the limit is 413, a correctly signed body that is not UTF-8 is 400 `malformed` and
 * stores nothing, and a good delivery is stored and answered 200.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryKey as githubDeliveryKey } from '../../src/github/webhook-handler.js';
import { deliveryKey as gitlabDeliveryKey } from '../../src/gitlab/webhook-handler.js';
import { deliveryKey as jiraDeliveryKey } from '../../src/jira/webhook-handler.js';
import { deliveryKey as linearDeliveryKey } from '../../src/linear/webhook-handler.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { startFakeGithubApi, type FakeGithubApi } from '../fakes/github-api.js';
import { startFakeGitlab, type FakeGitlab } from '../fakes/gitlab-api.js';
import { startFakeJiraApi, type FakeJiraApi } from '../fakes/jira-api.js';
import { startFakeLinearApi, type FakeLinearApi } from '../fakes/linear-api.js';
import { signSlack } from '../fakes/slack-signing.js';
import { REPO, githubDelivery, issueComment } from '../fixtures/github/index.js';
import { GITLAB_IDS, issueNote as gitlabNote } from '../fixtures/gitlab/index.js';
import { jiraDelivery, labelsChanged as jiraLabelsChanged } from '../fixtures/jira/webhooks.js';
import { issueCreated as linearIssueCreated, linearDelivery } from '../fixtures/linear/index.js';
import { appMention, eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { GITHUB_APP_ID, GITHUB_PEM, GITHUB_SECRET } from '../github/github-harness.js';
import { GITLAB_SECRET_TOKEN, GITLAB_TOKEN } from '../gitlab/gitlab-harness.js';
import { JIRA_EMAIL, JIRA_SECRET, JIRA_TOKEN } from '../jira/jira-harness.js';
import { LINEAR_KEY, LINEAR_SECRET } from '../linear/linear-harness.js';
import { rawRequest, within } from '../helpers/raw-http.js';
import { SLACK_SECRET, startSlackBridge, type SlackBridge } from '../helpers/slack-bridge.js';

const MIB = 1024 * 1024;

const YAML = `tracker:
  interval: 10m
github:
  repos:
    ${REPO}: { config: { environment_id: env_web, name: web } }
linear:
  labels:
    agent: { config: { environment_id: env_web, name: web } }
  teams: [ENG]
jira:
  labels:
    agent: { config: { environment_id: env_web, name: web } }
  projects: [ENG]
gitlab:
  projects:
    ${GITLAB_IDS.project.path}: { config: { environment_id: env_web, name: web } }
`;

const logger = new CapturingLogger();
let bridge: SlackBridge, linear: FakeLinearApi, github: FakeGithubApi, jira: FakeJiraApi, gitlab: FakeGitlab;

// Four platforms' fakes, the emulator and the service start here: on a busy machine that outgrows the default hook time.
beforeAll(async () => {
  linear = await startFakeLinearApi({ authorization: LINEAR_KEY });
  github = await startFakeGithubApi({ appId: GITHUB_APP_ID, privateKey: GITHUB_PEM, roles: { [REPO]: { octocat: 'write' } } });
  jira = await startFakeJiraApi({ email: JIRA_EMAIL, apiToken: JIRA_TOKEN });
  gitlab = await startFakeGitlab({ token: GITLAB_TOKEN, projects: [{ id: GITLAB_IDS.project.id, path_with_namespace: GITLAB_IDS.project.path }] });
  bridge = await startSlackBridge({
    linear,
    yaml: YAML,
    logger,
    env: {
      GITHUB_APP_ID,
      GITHUB_PRIVATE_KEY: GITHUB_PEM.trim().replace(/\n/g, '\\n'),
      GITHUB_WEBHOOK_SECRET: GITHUB_SECRET,
      GITHUB_API_URL: github.url,
      JIRA_BASE_URL: jira.url,
      JIRA_EMAIL,
      JIRA_API_TOKEN: JIRA_TOKEN,
      JIRA_WEBHOOK_SECRET: JIRA_SECRET,
      GITLAB_TOKEN,
      GITLAB_WEBHOOK_SECRET: GITLAB_SECRET_TOKEN,
      GITLAB_URL: gitlab.url,
    },
  });
}, 60_000);
afterAll(async () => {
  await bridge?.stop();
  await Promise.all([linear?.close(), github?.close(), jira?.close(), gitlab?.close()]);
}, 60_000);

/** A request as a surface's platform sends it: the signed headers for its body, and its delivery id. */
interface Signed {
  headers: Record<string, string>;
  deliveryId: string;
}

/** One surface's endpoint, as the table below drives it. */
interface SurfaceEdge {
  name: string;
  path: string;
  /** Signs `body` as the platform would (over the exact bytes). */
  sign(body: Buffer): Signed;
  /** The signature headers left out, and replaced by one that cannot be a signature. */
  unsigned: Record<string, string>;
  malformed: Record<string, string>;
  /** A delivery the surface stores: its body and what it answers. */
  good(): { body: Buffer; answer: string };
  /** Whether the store remembers the delivery (its dedupe key), for surfaces with a delivery id. */
  remembered(deliveryId: string): Promise<boolean>;
}

const hmacHex = (secret: string, body: Buffer) => createHmac('sha256', secret).update(body).digest('hex');
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const stored = JSON.stringify({ ok: true, outcome: 'stored' });
let githubComment = 9_100;

const SURFACES: SurfaceEdge[] = [
  {
    name: 'Slack',
    path: '/slack/events',
    sign: (body) => ({ headers: { 'content-type': 'application/json', ...signSlack(SLACK_SECRET, body) }, deliveryId: '' }),
    unsigned: { 'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)) },
    malformed: { 'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)), 'x-slack-signature': 'v0=abc' },
    good: () => ({ body: json(eventCallback(appMention({ channel: SLACK_IDS.channel }))), answer: '' }),
    remembered: async () => false,
  },
  {
    name: 'Linear',
    path: '/linear/webhook',
    sign: (body) => {
      const deliveryId = randomUUID();
      const { headers } = linearDelivery(LINEAR_SECRET, '', { deliveryId, event: 'Issue' });
      return { headers: { ...headers, 'linear-signature': hmacHex(LINEAR_SECRET, body) }, deliveryId };
    },
    unsigned: {},
    malformed: { 'linear-signature': 'sha256=abc' },
    good: () => ({ body: json(linearIssueCreated()), answer: stored }),
    remembered: (id) => bridge.service.store.eventKeys.has(linearDeliveryKey(id)),
  },
  {
    name: 'GitHub',
    path: '/github/webhook',
    sign: (body) => {
      const deliveryId = randomUUID();
      const { headers } = githubDelivery(GITHUB_SECRET, 'issue_comment', '', { deliveryId });
      return { headers: { ...headers, 'x-hub-signature-256': `sha256=${hmacHex(GITHUB_SECRET, body)}` }, deliveryId };
    },
    unsigned: { 'x-github-event': 'issue_comment', 'x-github-delivery': randomUUID() },
    malformed: { 'x-github-event': 'issue_comment', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': 'sha256=xyz' },
    good: () => ({ body: json(issueComment(7, '@agent fix the login', { id: (githubComment += 1) })), answer: stored }),
    remembered: (id) => bridge.service.store.eventKeys.has(githubDeliveryKey(id)),
  },
  {
    name: 'Jira',
    path: '/jira/webhook',
    sign: (body) => {
      const deliveryId = randomUUID();
      const { headers } = jiraDelivery(JIRA_SECRET, '', { deliveryId });
      return { headers: { ...headers, 'x-hub-signature': `sha256=${hmacHex(JIRA_SECRET, body)}` }, deliveryId };
    },
    unsigned: {},
    malformed: { 'x-hub-signature': 'ab'.repeat(32) },
    good: () => ({ body: json(jiraLabelsChanged({ id: '20001', key: 'ENG-1', summary: 'Fix the login', labels: ['agent'] }, [])), answer: stored }),
    remembered: (id) => bridge.service.store.eventKeys.has(jiraDeliveryKey(id)),
  },
  {
    // Its secret token comes back as it is, covering nothing of the body: the whole check is on the headers.
    name: 'GitLab',
    path: '/gitlab/webhook',
    sign: () => {
      const deliveryId = randomUUID();
      return {
        headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Note Hook', 'idempotency-key': deliveryId, 'x-gitlab-token': GITLAB_SECRET_TOKEN },
        deliveryId,
      };
    },
    unsigned: { 'x-gitlab-event': 'Note Hook', 'idempotency-key': randomUUID() },
    malformed: { 'x-gitlab-event': 'Note Hook', 'idempotency-key': randomUUID(), 'x-gitlab-token': `${GITLAB_SECRET_TOKEN}x` },
    good: () => ({ body: json(gitlabNote(7, '@agent fix the login').body), answer: stored }),
    remembered: (id) => bridge.service.store.eventKeys.has(gitlabDeliveryKey(id)),
  },
];
const table = SURFACES.map((surface) => [surface.name, surface] as const);

const triggerCount = () => bridge.triggerCount();
const upstreamCalls = () => [bridge.slack.calls.length, linear.calls.length, github.calls.length, jira.calls.length, gitlab.calls.length];
const post = async (surface: SurfaceEdge, body: Buffer, headers: Record<string, string>) => {
  const response = await fetch(`${bridge.service.url}${surface.path}`, { method: 'POST', headers, body });
  return { status: response.status, text: await response.text() };
};

// Refusals first, every surface's, then the good deliveries: a stored trigger's work calls the
// platforms, and the refusals are the ones checked for calling nothing.
const REFUSED = [
  ['no signature', 401, (surface: SurfaceEdge) => surface.unsigned, MIB],
  ['a malformed signature', 401, (surface: SurfaceEdge) => surface.malformed, MIB],
  ['a declared body over the limit', 413, (surface: SurfaceEdge) => surface.sign(Buffer.alloc(0)).headers, MIB + 1],
] as const;

describe.each(REFUSED)('%s: %i before a byte of the body is read, with no upstream call and no log line above debug', (_what, status, headers, length) => {
  it.each(table)('%s', async (_name, surface) => {
    const calls = upstreamCalls();
    const lines = logger.lines.length;
    const request = rawRequest(bridge.service.url, 'POST', surface.path, { 'content-type': 'application/json', ...headers(surface), 'content-length': length });
    try {
      expect(await within(request.status, 5_000)).toBe(status);
      // The unsent body is not waited for: the connection is closed.
      expect(await within(request.closed, 5_000)).toBeDefined();
    } finally {
      request.socket.destroy();
    }
    expect(upstreamCalls()).toEqual(calls);
    expect(logger.lines.slice(lines).filter((line) => line.level !== 'debug')).toEqual([]);
  });
});

describe('a correctly signed body that is not UTF-8: 400 malformed, nothing stored, no upstream call', () => {
  it.each(table)('%s', async (_name, surface) => {
    const triggers = await triggerCount();
    const calls = upstreamCalls();
    // A delivery the surface would store, with two bytes in it that UTF-8 has no use for.
    const good = surface.good().body;
    const body = Buffer.concat([good.subarray(0, 40), Buffer.from([0xff, 0xfe]), good.subarray(40)]);
    const signed = surface.sign(body);
    const answer = await post(surface, body, signed.headers);
    expect({ status: answer.status, body: JSON.parse(answer.text) as unknown }).toEqual({
      status: 400,
      body: { error: 'malformed', message: 'body is not valid UTF-8' },
    });
    expect(await triggerCount()).toBe(triggers);
    expect(await surface.remembered(signed.deliveryId)).toBe(false);
    expect(upstreamCalls()).toEqual(calls);
  });
});

describe('a good delivery: 200, stored before the answer', () => {
  it.each(table)('%s', async (_name, surface) => {
    const triggers = await triggerCount();
    const { body, answer } = surface.good();
    const signed = surface.sign(body);
    expect(await post(surface, body, signed.headers)).toEqual({ status: 200, text: answer });
    // A trigger is stored before the 200 or never: counting right after the answer is exact.
    expect(await triggerCount()).toBe(triggers + 1);
    if (signed.deliveryId) expect(await surface.remembered(signed.deliveryId)).toBe(true);
  });
});
