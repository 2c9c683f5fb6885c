/**
 * Slow bodies cannot take the webhooks down, on a real child process of the service (built-in
 * emulator; Slack, GitHub, Jira and Linear on, against their fakes). 300 anonymous connections from 30
 * loopback addresses, spread over the four webhook routes, each declare a big body under well-formed
 * forged signature headers — 100 of 1 MiB first, then 200 of 64 KiB — then send one byte every 3 s,
 * enough to keep the 30 s stall away, and open a new one a second after theirs was answered. Before
 * the minimum pace and the healthy pace, they held the whole body budget and every genuine delivery
 * got 503. Meanwhile signed
 * deliveries arrive on every route, from an address that trickles too (as behind a proxy): every one
 * must get its 2xx, the trickles must be cut (408 behind the minimum pace, 503 when a faster body took
 * their room, 503 at once while their source or the budget was full), and nothing may reach an
 * error-level log line.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGithubApi, type FakeGithubApi } from '../fakes/github-api.js';
import { startFakeJiraApi, type FakeJiraApi } from '../fakes/jira-api.js';
import { startFakeLinearApi, type FakeLinearApi } from '../fakes/linear-api.js';
import { startFakeSlackApi, type FakeSlackApi } from '../fakes/slack-api.js';
import { signSlack } from '../fakes/slack-signing.js';
import { githubDelivery, labeled } from '../fixtures/github/index.js';
import { issueCreated as jiraIssueCreated, jiraDelivery } from '../fixtures/jira/webhooks.js';
import { LINEAR_IDS, issueCreated as linearIssueCreated, linearDelivery } from '../fixtures/linear/index.js';
import { appMention, eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { GITHUB_APP_ID, GITHUB_PEM, GITHUB_SECRET } from '../github/github-harness.js';
import { rawRequest, within } from '../helpers/raw-http.js';
import { startTs, tempDir, type RunningCli } from '../helpers/spawn-cli.js';
import { JIRA_EMAIL, JIRA_SECRET, JIRA_TOKEN } from '../jira/jira-harness.js';
import { LINEAR_KEY, LINEAR_SECRET } from '../linear/linear-harness.js';
import { BRIDGE_CHILD, sleep, until } from './crash-harness.js';

const SLACK_SECRET = 'trickle-bodies-signing-secret-0123';
const BOT_TOKEN = 'xoxb-0000-1111-trickle-bodies-token';
const KIB = 1024;
const MIB = 1024 * KIB;
const TRICKLERS = 300;
/** The first third declare 1 MiB and start at once, to fill the part of the budget big bodies may use; the rest declare 64 KiB and follow, to fill the part kept for small ones. */
const BIG = 100;
const SOURCES = 30;
const TRICKLE_EVERY_MS = 3_000;
const RENEW_AFTER_MS = 1_000;
const ROUNDS = 6;
const ROUND_EVERY_MS = 2_000;

type Route = 'slack' | 'github' | 'jira' | 'linear';
const ROUTES: Route[] = ['slack', 'github', 'jira', 'linear'];
const PATHS: Record<Route, string> = { slack: '/slack/events', github: '/github/webhook', jira: '/jira/webhook', linear: '/linear/webhook' };

let slack: FakeSlackApi;
let github: FakeGithubApi;
let jira: FakeJiraApi;
let linear: FakeLinearApi;
let bridge: RunningCli;
let url: string;

beforeAll(async () => {
  slack = await startFakeSlackApi({ token: BOT_TOKEN });
  slack.setChannel(SLACK_IDS.channel, { name: 'dev' });
  slack.setUser(SLACK_IDS.user, { display_name: 'ada' });
  github = await startFakeGithubApi({ appId: GITHUB_APP_ID, privateKey: GITHUB_PEM });
  jira = await startFakeJiraApi({ email: JIRA_EMAIL, apiToken: JIRA_TOKEN });
  linear = await startFakeLinearApi({ authorization: LINEAR_KEY, labels: Object.values(LINEAR_IDS.labels) });
  const cwd = tempDir();
  writeFileSync(
    join(cwd, 'agent-bridge.yml'),
    [
      'tracker:\n  interval: 1s',
      'github:\n  repos:\n    acme/web: { config: { environment_id: env_web, name: web } }\n  labels:\n    agent: {}',
      'jira:\n  labels:\n    agent: {}\n  projects: [ENG]',
      'linear:\n  labels:\n    agent: {}\n  teams: [ENG]',
    ].join('\n') + '\n',
  );
  // No AGENT_API_BASE_URL: the service runs its built-in emulator.
  bridge = startTs(BRIDGE_CHILD, {
    cwd,
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_PATH: join(cwd, 'bridge.db'),
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SLACK_SECRET,
      SLACK_API_URL: slack.url,
      GITHUB_APP_ID,
      GITHUB_PRIVATE_KEY: GITHUB_PEM.trim().replace(/\n/g, '\\n'),
      GITHUB_WEBHOOK_SECRET: GITHUB_SECRET,
      GITHUB_API_URL: github.url,
      JIRA_BASE_URL: jira.url,
      JIRA_EMAIL,
      JIRA_API_TOKEN: JIRA_TOKEN,
      JIRA_WEBHOOK_SECRET: JIRA_SECRET,
      LINEAR_API_KEY: LINEAR_KEY,
      LINEAR_WEBHOOK_SECRET: LINEAR_SECRET,
      LINEAR_API_URL: linear.url,
    },
  });
  url = (await bridge.waitFor(/bridge ready (\S+)/, 30_000))[1]!;
}, 40_000);
afterAll(async () => {
  await bridge?.stop('SIGKILL');
  await Promise.all([slack?.close(), github?.close(), jira?.close(), linear?.close()]);
});

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
const mb = (bytes: number) => `${(bytes / MIB).toFixed(1)} MB`;
const hex64 = () => randomBytes(32).toString('hex');

/** Well-formed signature headers, forged: they pass every check made before the body is read. */
function forgedHeaders(route: Route): Record<string, string | number> {
  switch (route) {
    case 'slack':
      return { 'content-type': 'application/json', 'x-slack-request-timestamp': Math.floor(Date.now() / 1000), 'x-slack-signature': `v0=${hex64()}` };
    case 'github':
      return { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': `sha256=${hex64()}` };
    case 'jira':
      return { 'content-type': 'application/json', 'x-atlassian-webhook-identifier': randomUUID(), 'x-hub-signature': `sha256=${hex64()}` };
    case 'linear':
      return { 'content-type': 'application/json', 'linear-delivery': randomUUID(), 'linear-event': 'Issue', 'linear-signature': hex64() };
  }
}

let issueNumber = 0;

/** A genuine, correctly signed delivery on `route` that starts a run there (its issue known to the platform's fake). */
function genuineDelivery(route: Route): { headers: Record<string, string>; body: string } {
  issueNumber += 1;
  if (route === 'slack') {
    const body = JSON.stringify(eventCallback(appMention({ channel: SLACK_IDS.channel })));
    return { body, headers: { 'content-type': 'application/json', ...signSlack(SLACK_SECRET, body) } };
  }
  if (route === 'github') {
    const number = 100 + issueNumber;
    github.addIssue({
      repo: 'acme/web',
      number,
      title: 'Fix the login',
      body: 'It breaks.',
      user: { login: 'octocat', id: 583231, type: 'User' },
      labels: ['agent'],
      state: 'open',
    });
    return githubDelivery(GITHUB_SECRET, 'issues', labeled(number));
  }
  if (route === 'jira') {
    const issue = { id: String(40_000 + issueNumber), key: `ENG-${700 + issueNumber}`, summary: 'Fix the flaky test', labels: ['agent'] };
    jira.addIssue({ ...issue, project: { id: '10000', key: 'ENG', name: 'Engineering' } });
    return jiraDelivery(JIRA_SECRET, jiraIssueCreated(issue));
  }
  const id = randomUUID();
  const identifier = `ENG-${900 + issueNumber}`;
  const issueUrl = `https://linear.app/acme/issue/${identifier}`;
  linear.addIssue({ id, identifier, title: 'Fix the flaky test', url: issueUrl, team: { id: LINEAR_IDS.team.id, key: 'ENG' } });
  return linearDelivery(LINEAR_SECRET, linearIssueCreated({ id, identifier, title: 'Fix the flaky test', url: issueUrl }));
}

interface Delivered {
  route: Route;
  packets: 1 | 2;
  status: number;
  ms: number;
}

/**
 * Sends a genuine delivery on `route` and resolves with its status and how long its answer took: in one
 * packet (`fetch`), or in two 100 ms apart, so that its body is still arriving when the service reads
 * it and must find room in the budget rather than be taken in complete.
 */
async function genuine(route: Route, packets: 1 | 2 = 1): Promise<Delivered> {
  const { headers, body } = genuineDelivery(route);
  const started = Date.now();
  if (packets === 1) {
    const response = await fetch(`${url}${PATHS[route]}`, { method: 'POST', headers, body });
    await response.arrayBuffer();
    return { route, packets, status: response.status, ms: Date.now() - started };
  }
  const half = Math.floor(body.length / 2);
  const request = rawRequest(url, 'POST', PATHS[route], { ...headers, 'content-length': Buffer.byteLength(body) }, body.slice(0, half));
  await sleep(100);
  await request.write(body.slice(half));
  const status = (await within(request.status, 10_000)) ?? 0;
  request.socket.destroy();
  return { route, packets, status, ms: Date.now() - started };
}

/** What the trickling connections were answered, by status and code ("408 body_too_slow"), and how many were opened. */
interface Attack {
  answers: Map<string, number>;
  opened: number;
  /** Resolves once every trickler stopped (after `stop()`). */
  stop(): Promise<void>;
}

/** Starts `TRICKLERS` connections, each renewed a second after it is answered until the attack stops. */
function trickleAttack(): Attack {
  let over = false;
  const answers = new Map<string, number>();
  const live = new Set<ReturnType<typeof rawRequest>>();
  const attack: Attack = { answers, opened: 0, stop: async () => {} };
  const one = async (index: number) => {
    const route = ROUTES[index % ROUTES.length]!;
    const localAddress = `127.0.0.${(index % SOURCES) + 1}`;
    const declared = index < BIG ? MIB : 64 * KIB;
    if (index >= BIG) await sleep(1_000);
    while (!over) {
      const request = rawRequest(url, 'POST', PATHS[route], { ...forgedHeaders(route), 'content-length': declared }, 'x', { localAddress });
      attack.opened += 1;
      live.add(request);
      const beat = setInterval(() => void request.write('x'), TRICKLE_EVERY_MS);
      await request.closed;
      clearInterval(beat);
      live.delete(request);
      if (over) break;
      const status = await Promise.race([request.status, Promise.resolve(0)]);
      const code = status === 0 ? '' : ((JSON.parse((await request.answerBody) || '{}') as { error?: string }).error ?? '');
      const key = status === 0 ? 'closed unanswered' : `${status} ${code}`;
      answers.set(key, (answers.get(key) ?? 0) + 1);
      await sleep(RENEW_AFTER_MS);
    }
  };
  const all = Promise.all(Array.from({ length: TRICKLERS }, (_, index) => one(index)));
  attack.stop = async () => {
    over = true;
    for (const request of live) request.socket.destroy();
    await all;
  };
  return attack;
}

const count = (answers: Map<string, number>, prefix: string) => [...answers].filter(([key]) => key.startsWith(prefix)).reduce((sum, [, n]) => sum + n, 0);

describe(`${TRICKLERS} connections trickle big bodies into every webhook`, () => {
  it('every genuine delivery on Slack, GitHub, Jira and Linear gets its 2xx; the trickles are cut', async () => {
    const pid = bridge.child.pid!;
    // Warm up every route (Bolt's first request, the first runs), so the baseline is the service at work.
    for (const route of ROUTES) expect((await genuine(route)).status).toBe(200);
    const baseline = rssOf(pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 200);
    const attack = trickleAttack();
    const results: Delivered[] = [];
    try {
      // The budget is full once trickles are refused for want of room.
      await until(() => count(attack.answers, '503') > 0, 'the trickles to fill the body budget', 20_000);
      const fullAfter = attack.opened;
      for (let round = 0; round < ROUNDS; round++) {
        const started = Date.now();
        results.push(...(await Promise.all(ROUTES.flatMap((route) => [genuine(route, 1), genuine(route, 2)]))));
        await sleep(Math.max(0, ROUND_EVERY_MS - (Date.now() - started)));
      }
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      clearInterval(sampler);
      const answers = [...attack.answers].sort(([a], [b]) => a.localeCompare(b));
      const slowest = Math.max(...results.map((result) => result.ms));
      const ok = (of: Delivered[]) => `${of.filter((result) => result.status >= 200 && result.status < 300).length}/${of.length}`;
      const byRoute = ROUTES.map((route) => `${route} ${ok(results.filter((result) => result.route === route))}`);
      const byPackets = `in one packet ${ok(results.filter((result) => result.packets === 1))}, in two ${ok(results.filter((result) => result.packets === 2))}`;
      console.log(
        `[trickle-bodies] ${TRICKLERS} trickling connections from ${SOURCES} addresses (${fullAfter} opened when the budget was first full, ${attack.opened} in all); ` +
          `genuine deliveries 2xx: ${byRoute.join(', ')} (${byPackets}), slowest answer ${slowest} ms; trickles answered ${answers.map(([key, n]) => `${key} ×${n}`).join(', ')}; ` +
          `child RSS baseline ${mb(baseline)}, peak ${mb(peak)} (growth ${mb(peak - baseline)})`,
      );
      expect(results.filter((result) => result.status < 200 || result.status >= 300)).toEqual([]);
      // Slack's deadline is the shortest: no 200 within 3 s and it redelivers.
      expect(slowest).toBeLessThan(3_000);
      // The trickles were cut — under this pressure their room goes to faster bodies long before they fall
      // behind the minimum pace (408) — and answered nothing else.
      expect(count(attack.answers, '503 body_evicted')).toBeGreaterThan(0);
      expect(answers.map(([key]) => key).filter((key) => !['408 body_too_slow', '503 body_evicted', '503 busy'].includes(key))).toEqual([]);
      expect(peak - baseline).toBeLessThan(150 * MIB);
      // Anonymous traffic is not an error of ours: no error-level line (pino level 50).
      expect(bridge.output.stdout.split('\n').filter((line) => line.includes('"level":50'))).toEqual([]);
    } finally {
      clearInterval(sampler);
      await attack.stop();
    }
  }, 90_000);
});
