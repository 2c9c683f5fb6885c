/**
 * The world outside the service, in a child process of the bench (started by bench/outside-client.ts)
 * so that neither its CPU nor its garbage shares the service's event loop:
 *
 * - `world`: the fake Slack Web API, the fake Linear GraphQL API (with issues ENG-1 … ENG-n seeded,
 *   the ones the load generator sends), the fake Jira REST v3 (issues JB-1 … JB-n, when asked for)
 *   and the run-API emulator in manual mode;
 * - `load`: autocannon sending correctly signed Slack `app_mention` events, Linear "label added"
 *   Issue webhooks or Jira `jira:issue_updated` label changes, every request with its own ids and a
 *   fresh signature.
 *
 * One message in, one answer out, over the IPC channel: `{id, op, …}` → `{id, ok, value | error}`.
 */
import autocannon, { type AutocannonRequest } from 'autocannon';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';
import { startFakeJiraApi, type FakeJiraApi } from '../test/fakes/jira-api.js';
import { startFakeLinearApi, type FakeLinearApi } from '../test/fakes/linear-api.js';
import { jiraDelivery, labelsChanged } from '../test/fixtures/jira/webhooks.js';
import { startFakeSlackApi, type FakeSlackApi } from '../test/fakes/slack-api.js';
import { signSlack } from '../test/fakes/slack-signing.js';
import { LINEAR_IDS, labelAdded, linearDelivery } from '../test/fixtures/linear/index.js';
import { appMention, eventCallback } from '../test/fixtures/slack/events.js';
import { SLACK_IDS } from '../test/fixtures/slack/ids.js';
import { quantile } from './report.js';

export interface WorldRequest {
  op: 'world';
  slackToken: string;
  linearKey: string;
  /** Issues ENG-1 … ENG-n known to the fake Linear API. */
  linearIssues: number;
  emulatorKey: string;
  /** Issues JB-1 … JB-n known to the fake Jira, which answers this account's basic auth. */
  jira?: { issues: number; email: string; apiToken: string };
}

export interface WorldUrls {
  slackUrl: string;
  linearUrl: string;
  emulatorBaseUrl: string;
  /** The fake Jira site, when the world has one. */
  jiraUrl?: string;
}

export interface LoadRequest {
  op: 'load';
  kind: 'slack' | 'linear' | 'jira';
  /** Several URLs (replicas): autocannon spreads the connections over them in turn. */
  url: string | string[];
  secret: string;
  connections: number;
  seconds: number;
  /** Send exactly this many requests (then `seconds` is ignored). */
  amount?: number;
  /** Requests per second over all connections (autocannon `overallRate`); none = as fast as answered. */
  rate?: number;
  /** Linear: send issues the fake Linear API knows (ENG-1 …), else ones it does not (a bare baseline never asks). */
  knownIssues?: boolean;
}

export interface LoadResult {
  /** Responses with a 2xx status. */
  ok: number;
  /** Responses with any other status, by status. */
  other: Record<string, number>;
  errors: number;
  timeouts: number;
  seconds: number;
  /** Of every response, in ms: from writing the request to the last byte of the answer. */
  latency: { p50: number; p90: number; p99: number; max: number };
  /** CPU (user + system) this child spent during the run, in ms. */
  cpuMs: number;
}

export type OutsideRequest = WorldRequest | LoadRequest | { op: 'stats' } | { op: 'seen' };

/** What people have seen so far: Slack Web API calls by method, and runs the emulator created. */
export interface WorldSeen {
  slack: Record<string, number>;
  /** Jira REST calls by method and path template (`POST /issue/{key}/comment`). */
  jira: Record<string, number>;
  runsCreated: number;
}

export interface WorldStats {
  slackCalls: number;
  linearCalls: number;
  /** CPU this child spent since it started, in ms. */
  cpuMs: number;
}

const LINEAR_TEAM = { id: LINEAR_IDS.team.id, key: 'ENG' };
/** The nth bench issue, as both the fake Linear API and the webhooks know it. */
export const benchIssue = (n: number) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  identifier: `ENG-${n}`,
  title: `Bench issue ${n}`,
  url: `https://linear.app/acme/issue/ENG-${n}`,
  team: LINEAR_TEAM,
});

let slack: FakeSlackApi | undefined;
let linear: FakeLinearApi | undefined;
let jira: FakeJiraApi | undefined;
let jiraIssue = 0;
let emulator: RunningEmulator | undefined;
let runsCreated = 0;
let knownIssue = 0;
let unknownIssue = 10_000_000;

async function world(request: WorldRequest): Promise<WorldUrls> {
  slack = await startFakeSlackApi({ token: request.slackToken });
  slack.setChannel(SLACK_IDS.channel, { name: 'dev' });
  slack.setUser(SLACK_IDS.user, { display_name: 'ada' });
  const { agent, bug } = LINEAR_IDS.labels;
  linear = await startFakeLinearApi({ authorization: request.linearKey, labels: [agent, bug] });
  for (let n = 1; n <= request.linearIssues; n++) linear.addIssue(benchIssue(n));
  if (request.jira) {
    jira = await startFakeJiraApi({ email: request.jira.email, apiToken: request.jira.apiToken });
    for (let n = 1; n <= request.jira.issues; n++) jira.addIssue({ ...benchJiraIssue(n), project: { id: '1', key: 'JB', name: 'Bench' } });
  }
  emulator = await startEmulator({ apiKey: request.emulatorKey, port: 0, manual: true });
  // Counted here, where the runs are made: what the service claims to have created is checked against it.
  const engine = emulator.engine;
  const createRun = engine.createRun.bind(engine);
  engine.createRun = (input) => {
    runsCreated++;
    return createRun(input);
  };
  return { slackUrl: slack.url, linearUrl: linear.url, emulatorBaseUrl: emulator.baseUrl, ...(jira && { jiraUrl: jira.url }) };
}

/** A signed `app_mention` with a fresh ts, event_ts, client_msg_id and event_id (fixture counters). */
function slackRequest(secret: string): AutocannonRequest {
  const body = JSON.stringify(eventCallback(appMention({ channel: SLACK_IDS.channel })));
  return {
    method: 'POST',
    path: '/slack/events',
    headers: { 'content-type': 'application/json', ...signSlack(secret, body) },
    body,
  };
}

/** Issue ENG-n gaining the trigger label `Agent`, delivered now, with a fresh Linear-Delivery id. */
function linearRequest(secret: string, known: boolean): AutocannonRequest {
  const issue = benchIssue(known ? ++knownIssue : ++unknownIssue);
  const payload = labelAdded(LINEAR_IDS.labels.agent, [LINEAR_IDS.labels.bug], {
    id: issue.id,
    identifier: issue.identifier,
    title: issue.title,
    url: issue.url,
  });
  const { body, headers } = linearDelivery(secret, payload);
  return { method: 'POST', path: '/linear/webhook', headers, body };
}

/** The nth Jira bench issue, as the fake Jira and the webhooks know it. */
const benchJiraIssue = (n: number) => ({ id: String(100_000 + n), key: `JB-${n}`, summary: `Bench issue ${n}`, labels: [] as string[] });

/** Jira issue JB-n gaining the trigger label `agent` (a changelog of its own), with a fresh delivery id. */
function jiraRequest(secret: string): AutocannonRequest {
  const issue = { ...benchJiraIssue(++jiraIssue), labels: ['agent'] };
  const { body, headers } = jiraDelivery(secret, labelsChanged(issue, []));
  return { method: 'POST', path: '/jira/webhook', headers, body };
}

function load(request: LoadRequest): Promise<LoadResult> {
  const build =
    request.kind === 'slack'
      ? () => slackRequest(request.secret)
      : request.kind === 'jira'
        ? () => jiraRequest(request.secret)
        : () => linearRequest(request.secret, request.knownIssues ?? false);
  const latencies: number[] = [];
  const other: Record<string, number> = {};
  const cpu = process.cpuUsage();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: request.url,
        connections: request.connections,
        duration: request.seconds,
        ...(request.amount !== undefined && { amount: request.amount }),
        timeout: 10,
        ...(request.rate !== undefined && { overallRate: request.rate, ignoreCoordinatedOmission: true }),
        requests: [{ setupRequest: (defaults) => ({ ...defaults, ...build() }) }],
      },
      (error, result) => {
        if (error) return reject(error);
        const used = process.cpuUsage(cpu);
        resolve({
          ok: result['2xx'],
          other,
          errors: result.errors,
          timeouts: result.timeouts,
          seconds: result.duration,
          latency: { p50: quantile(latencies, 0.5), p90: quantile(latencies, 0.9), p99: quantile(latencies, 0.99), max: Math.max(...latencies) },
          cpuMs: (used.user + used.system) / 1000,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      latencies.push(responseTime);
      if (statusCode < 200 || statusCode > 299) other[statusCode] = (other[statusCode] ?? 0) + 1;
    });
  });
}

const slackTally: Record<string, number> = {};
let slackCounted = 0;

function seen(): WorldSeen {
  const calls = slack?.calls ?? [];
  // The fake keeps every call; count only the new ones since the last look.
  for (; slackCounted < calls.length; slackCounted++) {
    const method = calls[slackCounted]?.method ?? '?';
    slackTally[method] = (slackTally[method] ?? 0) + 1;
  }
  const jiraTally: Record<string, number> = {};
  for (const call of jira?.calls ?? []) {
    const path = call.path
      .replace(/^\/rest\/api\/3/, '')
      .replace(/\/issue\/[^/]+/, '/issue/{key}')
      .replace(/\/comment\/\d+/, '/comment/{id}');
    const name = `${call.method} ${path}`;
    jiraTally[name] = (jiraTally[name] ?? 0) + 1;
  }
  return { slack: { ...slackTally }, jira: jiraTally, runsCreated };
}

function stats(): WorldStats {
  const used = process.cpuUsage();
  return {
    slackCalls: slack?.calls.length ?? 0,
    linearCalls: linear?.calls.length ?? 0,
    cpuMs: (used.user + used.system) / 1000,
  };
}

async function answer(request: OutsideRequest): Promise<unknown> {
  switch (request.op) {
    case 'world':
      return world(request);
    case 'load':
      return load(request);
    case 'stats':
      return stats();
    case 'seen':
      return seen();
  }
}

process.on('message', (message: OutsideRequest & { id: number }) => {
  answer(message).then(
    (value) => process.send?.({ id: message.id, ok: true, value }),
    (error: unknown) => process.send?.({ id: message.id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
// The bench went away (or closed the channel): stop everything with it.
process.on('disconnect', () => {
  void Promise.allSettled([slack?.close(), linear?.close(), jira?.close(), emulator?.close()]).then(() => process.exit(0));
});
