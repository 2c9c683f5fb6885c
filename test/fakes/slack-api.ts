/**
 * A fake Slack Web API on node:http for offline tests. Point Bolt or a `WebClient` at `fake.url`
 * (`clientOptions: { slackApiUrl: fake.url, retryConfig: { retries: 0 } }`). Every call is recorded;
 * messages, reactions, users and channels are kept in memory and answered with Slack's shapes and
 * error codes. Failures (429 with Retry-After, 5xx, `ok:false` errors, slow answers) are injected per
 * method with `failNext`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handlePlaces } from './slack-places.js';
import { handleRead } from './slack-reads.js';
import { FakeAgentSessions, type FakeAgentSession } from './slack-sessions.js';
import { SlackState, type FakeMessage, type FakeSlackOptions, type FakeSlackUser, type SlackAnswer } from './slack-state.js';

export type { FakeMessage, FakeSlackOptions, FakeSlackUser, SlackMetadata } from './slack-state.js';
export type { FakeAgentSession } from './slack-sessions.js';

/** One recorded Web API call. */
export interface SlackCall {
  /** 1-based position among all calls since start or the last `reset()`. */
  seq: number;
  method: string;
  /** Form (or JSON) fields; JSON-string fields (blocks, attachments, metadata, …) are parsed. */
  args: Record<string, unknown>;
  /** Bearer token from the Authorization header, else the `token` field. */
  token?: string;
  /** Date.now() when the call arrived. */
  at: number;
  /** HTTP status answered (200 unless a failure was injected). */
  status: number;
  /** JSON body answered (`undefined` for an injected 5xx). */
  response: SlackAnswer | undefined;
}

/** An injected failure; see `FakeSlackApi.failNext`. */
export interface SlackFailure {
  /** How many consecutive calls fail (default 1). */
  count?: number;
  /** HTTP status, e.g. 429 (with Retry-After and `{ok:false,error:'ratelimited'}`) or 500. */
  status?: number;
  /** Seconds in the Retry-After header of a 429 (default 1). */
  retryAfter?: number;
  /** Answer HTTP 200 `{ok:false, error}`. */
  error?: string;
  /** Wait this long before answering. Without status/error the call succeeds (its effect is immediate), only late. */
  delayMs?: number;
  /** Answer only once this settles (the call is recorded at once): the caller waits while the test arranges what happens meanwhile. */
  until?: Promise<unknown>;
}

/** Handle on a running fake; see `startFakeSlackApi`. */
export interface FakeSlackApi {
  /** Base URL with trailing slash, e.g. `http://127.0.0.1:PORT/api/` (Bolt's `slackApiUrl`). */
  url: string;
  /** Every call in arrival order. */
  calls: SlackCall[];
  callsTo(method: string): SlackCall[];
  /** Stored messages of a channel (posting order, replies included) or of one thread (parent first). Copies. */
  messages(channel: string, threadTs?: string): FakeMessage[];
  /** Reaction names currently on a message (added by the bot). */
  reactions(channel: string, ts: string): string[];
  /** Ephemeral messages posted with chat.postEphemeral (never in history). */
  ephemerals(channel?: string): Array<{ channel: string; user: string; text: string; blocks?: unknown[]; message_ts: string }>;
  /** Seeds a human message (for conversations.replies / history). A missing ts gets a fresh one. */
  addUserMessage(msg: { channel: string; user: string; text: string; thread_ts?: string; ts?: string }): FakeMessage;
  setUser(id: string, profile: FakeSlackUser): void;
  setChannel(id: string, info: { name: string; is_im?: boolean }): void;
  /** A thread's agent session (`agents.sessions.*`), with every status it was set to; undefined when it has none. */
  agentSession(channel: string, threadTs: string): FakeAgentSession | undefined;
  /** Every agent session. */
  agentSessions(): FakeAgentSession[];
  /** Whether the app subscribes to `agent_session_stopped` (default yes; `reset()` restores it). */
  setAgentSessionStopSubscribed(subscribed: boolean): void;
  /** `user` is not a member of `channel`: `agents.sessions.setStatus` refuses them as the initiator there. */
  excludeFromChannel(channel: string, user: string): void;
  /** The next `count` calls to `method` fail as described. Queued failures apply in order. */
  failNext(method: string, failure: SlackFailure): void;
  /**
   * Resolves with the earliest recorded call to `method` matching `predicate` — one already made or the
   * next one. Rejects after `timeoutMs` (default 5000) listing the calls seen.
   */
  waitForCall(method: string, predicate?: (call: SlackCall) => boolean, timeoutMs?: number): Promise<SlackCall>;
  /** Forgets calls, state and pending failures. */
  reset(): void;
  close(): Promise<void>;
}

/** Fields Slack's clients send as JSON strings in a form body. */
const JSON_FIELDS = new Set(['blocks', 'attachments', 'metadata', 'view', 'unfurls', 'user_auth_blocks', 'prompts']);

/** Starts the fake on 127.0.0.1 with an ephemeral port. */
export async function startFakeSlackApi(options: FakeSlackOptions = {}): Promise<FakeSlackApi> {
  const state = new SlackState(options);
  const sessions = new FakeAgentSessions();
  const calls: SlackCall[] = [];
  const failures = new Map<string, Array<SlackFailure & { left: number }>>();
  const waiters = new Set<() => void>();

  const takeFailure = (method: string): SlackFailure | undefined => {
    const queue = failures.get(method);
    const head = queue?.[0];
    if (!queue || !head) return undefined;
    head.left -= 1;
    if (head.left <= 0) queue.shift();
    return head;
  };

  const authorise = (method: string, token: string | undefined): SlackAnswer | undefined => {
    if (token === undefined || token === '') return { ok: false, error: 'not_authed' };
    const expected = method === 'apps.connections.open' ? options.appToken : options.token;
    if (expected !== undefined && token !== expected) return { ok: false, error: 'invalid_auth' };
    return undefined;
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const match = /^\/api\/([A-Za-z0-9_.]+)$/.exec(url.pathname);
    if (!match?.[1]) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const method = match[1];
    const raw = await readBody(req);
    const args = parseArgs(raw, req.headers['content-type'] ?? '', url.searchParams);
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const token = bearer ?? (typeof args['token'] === 'string' ? args['token'] : undefined);
    delete args['token'];

    const failure = takeFailure(method);
    let status = 200;
    let body: SlackAnswer | undefined;
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    if (failure?.status === 429) {
      status = 429;
      headers['retry-after'] = String(failure.retryAfter ?? 1);
      body = { ok: false, error: 'ratelimited' };
    } else if (failure?.status !== undefined && failure.status !== 200) {
      status = failure.status;
    } else if (failure?.error !== undefined) {
      body = { ok: false, error: failure.error };
    } else {
      body = authorise(method, token) ??
        state.handle(method, args) ??
        handlePlaces(method, args) ??
        sessions.handle(method, args) ??
        handleRead(state, method, args) ?? { ok: false, error: 'unknown_method' };
    }
    const call: SlackCall = { seq: calls.length + 1, method, args, ...(token !== undefined ? { token } : {}), at: Date.now(), status, response: body };
    calls.push(call);
    for (const wake of [...waiters]) wake();

    if (failure?.delayMs) await new Promise((r) => setTimeout(r, failure.delayMs));
    if (failure?.until) await failure.until;
    if (res.destroyed) return;
    if (body === undefined) {
      res.writeHead(status, { 'content-type': 'text/html' }).end('<html><body>Internal Server Error</body></html>');
      return;
    }
    res.writeHead(status, headers).end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    onRequest(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/api/`,
    calls,
    callsTo: (method) => calls.filter((c) => c.method === method),
    messages: (channel, threadTs) => state.list(channel, threadTs),
    reactions: (channel, ts) => state.reactionNames(channel, ts),
    ephemerals: (channel) => state.ephemerals.filter((e) => channel === undefined || e.channel === channel).map((e) => structuredClone(e)),
    addUserMessage(msg) {
      const stored = state.store({
        type: 'message',
        channel: msg.channel,
        ts: msg.ts ?? state.nextTs(),
        text: msg.text,
        user: msg.user,
        team: state.teamId,
        ...(msg.thread_ts !== undefined ? { thread_ts: msg.thread_ts } : {}),
      });
      return structuredClone(stored);
    },
    setUser: (id, profile) => state.setUser(id, profile),
    setChannel: (id, info) => state.setChannel(id, info),
    agentSession: (channel, threadTs) => sessions.get(channel, threadTs),
    agentSessions: () => sessions.all(),
    setAgentSessionStopSubscribed(subscribed) {
      sessions.stopSubscribed = subscribed;
    },
    excludeFromChannel: (channel, user) => sessions.exclude(channel, user),
    failNext(method, failure) {
      const queue = failures.get(method) ?? [];
      failures.set(method, queue);
      queue.push({ ...failure, left: failure.count ?? 1 });
    },
    waitForCall(method, predicate = () => true, timeoutMs = 5000) {
      const find = () => calls.find((c) => c.method === method && predicate(c));
      const found = find();
      if (found) return Promise.resolve(found);
      return new Promise<SlackCall>((resolve, reject) => {
        const wake = () => {
          const hit = find();
          if (!hit) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(hit);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          const seen = calls
            .filter((c) => c.method === method)
            .map((c) => JSON.stringify(c.args))
            .join('\n  ');
          reject(new Error(`fake Slack: no matching ${method} call within ${timeoutMs} ms; ${method} calls seen:\n  ${seen || '(none)'}`));
        }, timeoutMs);
        waiters.add(wake);
      });
    },
    reset() {
      calls.length = 0;
      failures.clear();
      state.clear();
      sessions.clear();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Query string + form or JSON body; JSON-string fields parsed (left as strings when not valid JSON). */
function parseArgs(raw: string, contentType: string, query: URLSearchParams): Record<string, unknown> {
  const args: Record<string, unknown> = Object.fromEntries(query);
  if (contentType.startsWith('application/json')) {
    try {
      const parsed: unknown = raw === '' ? {} : JSON.parse(raw);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) Object.assign(args, parsed);
    } catch {
      args['__invalid_json'] = raw;
    }
    return args;
  }
  for (const [key, value] of new URLSearchParams(raw)) {
    if (JSON_FIELDS.has(key)) {
      try {
        args[key] = JSON.parse(value) as unknown;
        continue;
      } catch {
        /* keep the raw string: the handler answers invalid_*_format */
      }
    }
    args[key] = value;
  }
  return args;
}
