/**
 * Shared pieces of the outage suites: a run-API emulator whose listening
 * socket can be closed and reopened on the same port (connection refused, then recovery, with every
 * run kept), a wrapper that makes run-API calls time out, bounded polling, and readers of the fakes'
 * recorded calls per Slack thread and per Linear issue.
 */
import { createServer, type Server } from 'node:http';
import { AgentApiError, type AgentRuns, type RunPage } from '../../src/core/ports/agent-runs.js';
import { createEmulatorHandler, type RunEngine, type Timings } from '../../src/emulator/index.js';
import type { FakeLinearApi, LinearCall } from '../fakes/linear-api.js';
import type { FakeSlackApi, SlackCall } from '../fakes/slack-api.js';
import { releasePort, reservedPort } from '../helpers/ports.js';

/** Polls until `find` gives something truthy; fails after `timeoutMs` naming what it waited for. */
export async function until<T>(find: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 15_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface SwitchableEmulator {
  url: string;
  baseUrl: string;
  port: number;
  engine: RunEngine;
  /** Whether the listening socket is open. */
  readonly up: boolean;
  /** Closes the listening socket and every connection: clients now get ECONNREFUSED. Runs are kept. */
  goDown(): Promise<void>;
  /** Listens again on the same port, with the same runs, faults and request log. */
  comeUp(): Promise<void>;
  /** `POST /_emulator/faults` (only while up). */
  fault(body: Record<string, unknown>): Promise<void>;
  clearFaults(): Promise<void>;
  close(): Promise<void>;
}

/** The emulator's handler on a server of our own, so the port can go dark and come back with the same state. */
export async function startSwitchableEmulator(options: { apiKey: string; timings?: Partial<Timings>; manual?: boolean }): Promise<SwitchableEmulator> {
  const emulator = createEmulatorHandler({
    apiKey: options.apiKey,
    ...(options.timings && { timings: options.timings }),
    ...(options.manual && { manual: true }),
  });
  let server: Server | undefined;
  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const next = createServer(emulator.handler);
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        next.off('error', reject);
        resolve(next);
      });
    });
  const close = (current: Server) =>
    new Promise<void>((resolve) => {
      current.close(() => resolve());
      current.closeAllConnections();
    });
  // A held port: while the emulator is down nobody else's server can take it and answer in its place.
  const port = await reservedPort();
  server = await listen(port);
  const url = `http://127.0.0.1:${port}`;
  emulator.engine.setPublicUrl(url);
  const call = async (method: string, body?: Record<string, unknown>) => {
    const response = await fetch(`${url}/_emulator/faults`, {
      method,
      ...(body && { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    if (response.status !== 200) throw new Error(`emulator faults ${method} answered ${response.status}: ${await response.text()}`);
  };
  return {
    url,
    baseUrl: `${url}/api/v1`,
    port,
    engine: emulator.engine,
    get up() {
      return server !== undefined;
    },
    goDown: async () => {
      const current = server;
      server = undefined;
      if (current) await close(current);
    },
    comeUp: async () => {
      if (server) return;
      // The port is held for us, but the old socket may take a moment to let it go on a busy machine.
      for (let attempt = 1; ; attempt++) {
        try {
          server = await listen(port);
          return;
        } catch (error) {
          if (attempt >= 20) throw error;
          await sleep(100);
        }
      }
    },
    fault: (body) => call('POST', body),
    clearFaults: () => call('DELETE'),
    close: async () => {
      emulator.close();
      const current = server;
      server = undefined;
      if (current) await close(current);
      releasePort(port);
    },
  };
}

export type RunCallMode = 'pass' | 'timeout';

/**
 * Wraps the service's run-API client (`overrides.wrapAgentRuns`). In `timeout` mode a create is sent
 * and its answer lost — the run exists on the server, the caller sees a timeout (the case that needs
 * reconciliation) — and reads time out without reaching the server.
 */
export class TimeoutSwitch {
  mode: RunCallMode = 'pass';
  readonly counts = { lostCreates: 0, timedOutReads: 0 };

  wrap = (inner: AgentRuns): AgentRuns => {
    const timeout = (call: string) => new AgentApiError(`${call} did not answer in time`, { kind: 'timeout', retryable: true });
    return {
      createRun: async (request) => {
        if (this.mode === 'pass') return inner.createRun(request);
        await inner.createRun(request);
        this.counts.lostCreates += 1;
        throw timeout('POST /agent/run');
      },
      dispatchToFactory: (uid, request) => inner.dispatchToFactory(uid, request),
      listRuns: async (query) => {
        if (this.mode === 'pass') return inner.listRuns(query);
        this.counts.timedOutReads += 1;
        await sleep(50);
        throw timeout('GET /agent/runs');
      },
      allRuns: (query) => {
        const mode = this.mode;
        if (mode === 'pass') return inner.allRuns(query);
        this.counts.timedOutReads += 1;
        const firstPage = async (): Promise<RunPage> => {
          await sleep(50);
          throw timeout('GET /agent/runs');
        };
        return (async function* () {
          yield* (await firstPage()).runs;
        })();
      },
      getRun: async (runId) => {
        if (this.mode === 'pass') return inner.getRun(runId);
        this.counts.timedOutReads += 1;
        throw timeout('GET /agent/runs/{id}');
      },
      sendFollowup: (runId, message) => inner.sendFollowup(runId, message),
      cancelRun: (runId) => inner.cancelRun(runId),
    };
  };
}

/** Known run states in the order a run passes them (for "edits in state order"). */
export const STATE_ORDER = ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'BLOCKED', 'SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'];
export const stateRank = (state: string) => STATE_ORDER.indexOf(state);

/** True when the ranks never go down. */
export function isMonotonic(states: string[]): boolean {
  return states.every((state, index) => index === 0 || stateRank(state) >= stateRank(states[index - 1] ?? ''));
}

/** The Slack calls that landed (HTTP 200 and `ok`). */
export const landed = (call: SlackCall) => call.status === 200 && call.response?.ok === true;

/** The metadata key of a posted Slack message, if any. */
export function slackKeyOf(call: SlackCall): string | undefined {
  const metadata = call.args['metadata'] as { event_payload?: { key?: unknown } } | undefined;
  const key = metadata?.event_payload?.key;
  return typeof key === 'string' ? key : undefined;
}

/** The run state a status message shows (from its fallback text `title: STATE…`). */
export function slackStateOf(call: SlackCall): string | undefined {
  const text = call.args['text'];
  if (typeof text !== 'string') return undefined;
  const match = /: (QUEUED|PENDING|CLAIMED|INPROGRESS|BLOCKED|SUCCEEDED|FAILED|ERROR|CANCELLED)\b/.exec(text);
  return match?.[1];
}

/**
 * What one Slack thread saw, in the order the fake received it, counting only calls that landed:
 * posts in the thread, edits of messages in it, reactions on the request.
 */
export function slackThreadStory(slack: FakeSlackApi, channel: string, threadTs: string) {
  const posts = slack.calls.filter(
    (call) => landed(call) && call.method === 'chat.postMessage' && call.args['channel'] === channel && call.args['thread_ts'] === threadTs,
  );
  const postedTs = new Set(posts.map((call) => String((call.response as { ts?: unknown } | undefined)?.ts)));
  const edits = slack.calls.filter(
    (call) => landed(call) && call.method === 'chat.update' && call.args['channel'] === channel && postedTs.has(String(call.args['ts'])),
  );
  const reactions = slack.calls.filter(
    (call) => landed(call) && call.method.startsWith('reactions.') && call.args['channel'] === channel && call.args['timestamp'] === threadTs,
  );
  const all = [...posts, ...edits, ...reactions].sort((a, b) => a.seq - b.seq);
  return { posts, edits, reactions, all };
}

/** Inputs of the Linear calls that landed (HTTP 200), by operation. */
export const linearInput = (call: LinearCall) => (call.variables['input'] ?? {}) as Record<string, unknown>;

/**
 * What one Linear issue saw: the comment mutations that landed, in arrival order. A create counts
 * once per id (a create retried under the same id is answered "already exists" and changes nothing).
 */
export function linearIssueStory(linear: FakeLinearApi, issueId: string) {
  const commentIds = new Set(linear.comments(issueId).map((comment) => comment.id));
  const seen = new Set<string>();
  const story: Array<{ seq: number; op: 'create' | 'update'; commentId: string; body: string }> = [];
  for (const call of linear.calls) {
    if (call.status !== 200) continue;
    if (call.operation === 'createComment') {
      const input = linearInput(call);
      const id = String(input['id']);
      if (!commentIds.has(id) || seen.has(id)) continue;
      seen.add(id);
      story.push({ seq: call.seq, op: 'create', commentId: id, body: String(input['body']) });
    } else if (call.operation === 'updateComment') {
      const id = String(call.variables['id']);
      if (!commentIds.has(id)) continue;
      story.push({ seq: call.seq, op: 'update', commentId: id, body: String(linearInput(call)['body']) });
    }
  }
  return story;
}

/** The state a Linear start comment shows (`State: **STATE**`). */
export function linearStateOf(body: string): string | undefined {
  return /State: \*\*([A-Z]+)\*\*/.exec(body)?.[1];
}
