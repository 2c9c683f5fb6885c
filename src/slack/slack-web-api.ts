/**
 * The service's own Slack Web API client for the calls the outbox side makes on every worked trigger
 * (`SlackCalls`): one form-encoded POST over undici's `request` on the shared keep-alive pool, its JSON
 * answer, and nothing else. `@slack/web-api`'s `WebClient` wraps each call in a queue and a retry
 * policy and builds debug strings of the request and answer whatever the log level — about 0.9 ms of
 * CPU per worked mention (docs/benchmarks.md) — while the outbox owns queueing and retries.
 *
 * What goes over the wire is WebClient's: the same URL, headers and body encoding (`formBody`). Failures
 * reject with `@slack/web-api`'s own error classes, built as WebClient builds them with
 * `rejectRateLimitedCalls` and no retries, so slack-errors.ts reads both clients alike:
 * `ok: false` (or an answer that is not JSON) → `WebAPIPlatformError`, HTTP 429 → `WebAPIRateLimitedError`,
 * any other status but 200 → `WebAPIHTTPError`, a network failure or timeout → `WebAPIRequestError`
 * whose `original` has the shape `fetch`'s would (slack-fetch.ts).
 *
 * Bolt's own client (listeners, modals, Socket Mode, `auth.test`, file uploads) stays a WebClient.
 */
import { STATUS_CODES } from 'node:http';
import { stringify } from 'node:querystring';
import { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError, type WebAPICallResult } from '@slack/web-api';
import { getUserAgent } from '@slack/web-api/dist/instrument.js';
import type { Logger } from '../core/ports/logger.js';
import type { SlackCalls } from './slack-calls.js';
import { redactSecrets } from './slack-errors.js';
import { slackPool } from './slack-fetch.js';

/** How a `SlackWebApi` reaches Slack. */
export interface SlackWebApiOptions {
  /** The bot token, sent as `authorization: Bearer …` and never logged. */
  token: string;
  /** `SLACK_API_URL` (`https://slack.com/api/`): the method's name is appended to it. */
  apiUrl: string;
  logger: Logger;
  /** Longest wait for Slack's answer to start, then between its parts (default 10 s, WebClient's `timeout` for the service). */
  timeoutMs?: number;
  /** Say Slack's `response_metadata` warnings at warn (default yes); agent sessions say theirs once themselves. */
  warnings?: boolean;
}

/** Encodes call arguments exactly as WebClient does: absent values dropped, objects JSON, the rest as text. */
export function formBody(args: object): string {
  const fields: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    fields[key] = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : JSON.stringify(value);
  }
  return stringify(fields);
}

/** A Slack Web API client for the outbox side's calls; one per token and purpose, reused for every call. */
export class SlackWebApi implements SlackCalls {
  readonly chat: SlackCalls['chat'] = {
    postMessage: (args) => this.call('chat.postMessage', args),
    update: (args) => this.call('chat.update', args),
    getPermalink: (args) => this.call('chat.getPermalink', args),
    postEphemeral: (args) => this.call('chat.postEphemeral', args),
    unfurl: (args) => this.call('chat.unfurl', args),
  };
  readonly reactions: SlackCalls['reactions'] = {
    add: (args) => this.call('reactions.add', args),
    remove: (args) => this.call('reactions.remove', args),
  };
  readonly conversations: SlackCalls['conversations'] = {
    history: (args) => this.call('conversations.history', args),
    replies: (args) => this.call('conversations.replies', args),
    info: (args) => this.call('conversations.info', args),
  };
  readonly users: SlackCalls['users'] = {
    info: (args) => this.call('users.info', args),
    lookupByEmail: (args) => this.call('users.lookupByEmail', args),
  };
  readonly views: SlackCalls['views'] = {
    publish: (args) => this.call('views.publish', args),
  };
  readonly agents: SlackCalls['agents'] = {
    sessions: {
      setStatus: (args) => this.call('agents.sessions.setStatus', args),
      rename: (args) => this.call('agents.sessions.rename', args),
    },
  };
  readonly assistant: SlackCalls['assistant'] = {
    threads: {
      setSuggestedPrompts: (args) => this.call('assistant.threads.setSuggestedPrompts', args),
      setStatus: (args) => this.call('assistant.threads.setStatus', args),
    },
  };

  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  /** `apiUrl` read once: undici's `request(url)` parses the URL again on every call. */
  private readonly origin: string;
  private readonly basePath: string;

  constructor(private readonly options: SlackWebApiOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    const api = new URL(options.apiUrl);
    this.origin = api.origin;
    this.basePath = api.pathname;
    this.headers = {
      'user-agent': getUserAgent(),
      accept: 'application/json',
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Bearer ${options.token}`,
    };
  }

  /** Calls `method` with `args`; resolves with Slack's answer when it says `ok`, else rejects with WebClient's error for it. */
  private async call<Result extends WebAPICallResult>(method: string, args: object): Promise<Result> {
    try {
      const result = (await this.exchange(method, args)) as Result;
      this.said(method, 'ok');
      return result;
    } catch (error) {
      this.said(method, outcomeOf(error));
      throw error;
    }
  }

  private async exchange(method: string, args: object): Promise<WebAPICallResult> {
    // A call may name its own token, as WebClient allows (`token` in the arguments).
    const own = (args as { token?: unknown }).token;
    const headers = typeof own === 'string' ? { ...this.headers, authorization: `Bearer ${own}` } : this.headers;
    let status: number;
    let answerHeaders: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      const answer = await slackPool().request({
        origin: this.origin,
        path: `${this.basePath}${method}`,
        method: 'POST',
        headers,
        body: formBody(args),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      status = answer.statusCode;
      answerHeaders = answer.headers;
      text = await answer.body.text();
    } catch (error) {
      throw new WebAPIRequestError(asFetchFailure(error));
    }
    if (status === 429) {
      const retryAfter = retryAfterSeconds(answerHeaders['retry-after']);
      // WebClient throws a plain error here (not one of its own): slack-errors.ts retries it as unexpected.
      if (retryAfter === undefined) throw new Error(`Slack ${method} was rate limited without a valid Retry-After`);
      throw new WebAPIRateLimitedError(retryAfter);
    }
    if (status !== 200) throw new WebAPIHTTPError(status, STATUS_CODES[status] ?? '', flatHeaders(answerHeaders), text);
    const result = parseAnswer(text);
    if (this.options.warnings !== false) this.warn(method, result);
    if (!result.ok) throw new WebAPIPlatformError(result as WebAPICallResult & { error: string });
    return result;
  }

  /** Slack's warnings about a call (a deprecated argument, a missing event subscription), as WebClient says them. */
  private warn(method: string, result: WebAPICallResult): void {
    const { warnings, messages } = result.response_metadata ?? {};
    if (!warnings?.length && !messages?.length) return;
    const words = (list: unknown[] | undefined) => list?.map((item) => redactSecrets(String(item)).slice(0, 300));
    this.options.logger.warn({ method, warnings: words(warnings), messages: words(messages) }, `Slack warned about ${method}`);
  }

  /** One debug line per call, naming the method and how it ended; never its arguments, its answer or the token. */
  private said(method: string, outcome: string): void {
    const logger = this.options.logger;
    if (logger.isLevelEnabled?.('debug') === false) return;
    logger.debug({ method, outcome }, 'Slack Web API call');
  }
}

/** Slack's answer as WebClient builds it: the parsed JSON with a `response_metadata`, or `{ok: false, error: <text>}` when it is not JSON. */
function parseAnswer(text: string): WebAPICallResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const result = (typeof parsed === 'object' && parsed !== null ? parsed : { ok: false, error: text }) as WebAPICallResult;
  result.response_metadata ??= {};
  return result;
}

/** What `fetch` would have rejected with (slack-fetch.ts): a timeout's `TimeoutError`, else a `TypeError` caused by the network error. */
function asFetchFailure(error: unknown): Error {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
  }
  return new TypeError('fetch failed', { cause: error });
}

/** `Retry-After` in whole seconds, read as WebClient reads it (`parseInt`); undefined when absent or not a number. */
function retryAfterSeconds(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  const seconds = Number.parseInt(value, 10);
  return Number.isNaN(seconds) ? undefined : seconds;
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

/** A safe word for how a call ended: Slack's error string when it looks like one, else the error's kind. */
function outcomeOf(error: unknown): string {
  if (error instanceof WebAPIPlatformError) {
    const code: unknown = error.data.error;
    return typeof code === 'string' && /^[a-z0-9_]{1,80}$/.test(code) ? code : 'unreadable_answer';
  }
  if (error instanceof WebAPIHTTPError) return `http_${error.statusCode}`;
  if (error instanceof WebAPIRateLimitedError) return 'rate_limited';
  if (error instanceof WebAPIRequestError) return 'request_error';
  return 'unexpected_error';
}
