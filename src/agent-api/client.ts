import { Agent, request, type Dispatcher } from 'undici';
import {
  AgentApiError,
  type AgentRuns,
  type CreateRunRequest,
  type CreatedRun,
  type FactoryRunRequest,
  type ListRunsQuery,
  type RunItem,
  type RunPage,
} from '../core/ports/agent-runs.js';
import { errorFromResponse, errorFromTransport, parseRetryAfter } from './errors.js';
import { DEFAULT_RETRY_OPTIONS, nextRetry, type CallSafety, type RetryOptions } from './retry-policy.js';
import { parseCreatedRun, parseRunItem, parseRunPage } from './schemas.js';
import { ATTR, EVENT, RETRY_IN_MS, SPAN } from '../core/ports/trace-names.js';
import { tracing, type TraceSpan } from '../core/ports/tracing.js';

export interface AgentApiClientOptions {
  /** Base URL ending in `/api/v1`. */
  baseUrl: string;
  apiKey: string;
  /** Time to wait for response headers and between body chunks. Default 30 s. */
  timeoutMs?: number;
  retry?: Partial<RetryOptions>;
  /** Waits between retries; injectable so tests can record the delay instead of sleeping. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
  /** Told about every retry (for logs and metrics); never sees the key. */
  onRetry?: (event: { call: string; attempt: number; delayMs: number; error: AgentApiError }) => void;
  /** Told about every HTTP exchange (for metrics): the call name and the status (0 = no answer). */
  onRequest?: (event: { call: string; status: number; durationMs: number }) => void;
  userAgent?: string;
}

interface Call {
  method: 'GET' | 'POST';
  path: string;
  /** Names the call in errors and logs, e.g. `POST /agent/run`; never contains ids or secrets beyond the path. */
  name: string;
  safety: CallSafety;
  query?: URLSearchParams;
  body?: unknown;
  /** A call that invokes the agent (GenAI's `invoke_agent`): its run, when known before the answer, and its agent's name. */
  invokes?: { runId?: string; agentName?: string };
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Typed client of the Cloud Agent Run API (docs/architecture.md §7). Implements the core's `AgentRuns` port.
 * Retries follow `retry-policy.ts`: a create is never re-sent when the server may have acted on it.
 */
export class AgentApiClient implements AgentRuns {
  private readonly baseUrl: string;
  private readonly authorization: string;
  private readonly timeoutMs: number;
  private readonly retry: RetryOptions;
  private readonly dispatcher: Dispatcher;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;

  constructor(private readonly options: AgentApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    // Kept only inside the request headers; never copied into an error, a log line or output.
    this.authorization = `Bearer ${options.apiKey}`;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retry = { ...DEFAULT_RETRY_OPTIONS, ...options.retry };
    this.dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 16 });
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
  }

  async createRun(body: CreateRunRequest): Promise<CreatedRun> {
    const invokes = { ...(body.config?.name !== undefined && { agentName: body.config.name }) };
    const answer = await this.call({ method: 'POST', path: '/agent/run', name: 'POST /agent/run', safety: 'not-idempotent', body, invokes });
    return this.validate('POST /agent/run', answer, parseCreatedRun);
  }

  async dispatchToFactory(factoryUid: string, body: FactoryRunRequest): Promise<CreatedRun> {
    const path = `/factory/${encodeURIComponent(factoryUid)}/runs`;
    const answer = await this.call({
      method: 'POST',
      path,
      name: 'POST /factory/{uid}/runs',
      safety: 'not-idempotent',
      body,
      invokes: { agentName: factoryUid },
    });
    return this.validate('POST /factory/{uid}/runs', answer, parseCreatedRun);
  }

  async listRuns(query: ListRunsQuery = {}): Promise<RunPage> {
    const answer = await this.call({ method: 'GET', path: '/agent/runs', name: 'GET /agent/runs', safety: 'idempotent', query: toSearchParams(query) });
    return this.validate('GET /agent/runs', answer, parseRunPage);
  }

  async *allRuns(query: Omit<ListRunsQuery, 'cursor'> = {}): AsyncGenerator<RunItem> {
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (;;) {
      const page = await this.listRuns(cursor === undefined ? query : { ...query, cursor });
      yield* page.runs;
      const next = page.page_info.next_cursor ?? undefined;
      if (!page.page_info.has_next_page || !next) return;
      // A server that hands back a cursor twice would otherwise loop forever.
      if (seen.has(next)) {
        throw new AgentApiError('GET /agent/runs returned a cursor it had already returned', {
          kind: 'invalid_response',
          retryable: false,
        });
      }
      seen.add(next);
      cursor = next;
    }
  }

  async getRun(runId: string): Promise<RunItem> {
    const path = `/agent/runs/${encodeURIComponent(runId)}`;
    const answer = await this.call({ method: 'GET', path, name: 'GET /agent/runs/{id}', safety: 'idempotent' });
    return this.validate('GET /agent/runs/{id}', answer, parseRunItem);
  }

  async sendFollowup(runId: string, message: string): Promise<void> {
    const path = `/agent/runs/${encodeURIComponent(runId)}/followups`;
    await this.call({ method: 'POST', path, name: 'POST /agent/runs/{id}/followups', safety: 'not-idempotent', body: { message }, invokes: { runId } });
  }

  async cancelRun(runId: string): Promise<void> {
    const path = `/agent/runs/${encodeURIComponent(runId)}/cancel`;
    await this.call({ method: 'POST', path, name: 'POST /agent/runs/{id}/cancel', safety: 'idempotent' });
  }

  /** Closes pooled connections. */
  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private validate<T>(
    what: string,
    value: unknown,
    parse: (value: unknown) => { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } },
  ): T {
    const parsed = parse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}` : 'unreadable body';
    throw new AgentApiError(`${what} returned a body this client cannot read (${where})`, {
      kind: 'invalid_response',
      retryable: false,
    });
  }

  /**
   * One call, retried as its safety allows. Tracing on, a call that invokes the agent is a client span
   * (`invoke_agent`, its run id as `gen_ai.conversation.id`); a read only inside a span already (a
   * tracker's poll alone is no trace). Each retry is an event; a failure is the span's status with
   * its stable code as `error.type`.
   */
  private call(call: Call): Promise<unknown> {
    const traces = tracing();
    if (!traces.on || (!call.invokes && traces.active().traceparent === undefined)) return this.attempts(call);
    const attributes = {
      [ATTR.runApiCall]: call.name,
      ...(call.invokes && {
        [ATTR.genAiOperation]: 'invoke_agent',
        [ATTR.genAiConversation]: call.invokes.runId,
        [ATTR.genAiAgentName]: call.invokes.agentName,
      }),
    };
    return traces.inSpan(call.invokes ? SPAN.invokeAgent : SPAN.runApi, { kind: 'client', attributes }, async (span) => {
      const answer = await this.attempts(call, span);
      const runId = (answer as { run_id?: unknown } | undefined)?.run_id;
      if (call.invokes && typeof runId === 'string') span.setAttribute(ATTR.genAiConversation, runId);
      return answer;
    });
  }

  private async attempts(call: Call, span?: TraceSpan): Promise<unknown> {
    for (let retry = 1; ; retry++) {
      try {
        return await this.once(call);
      } catch (error) {
        if (!(error instanceof AgentApiError)) throw error;
        const delayMs = nextRetry(error, call.safety, retry, this.retry, this.random);
        if (delayMs === undefined) throw error;
        this.options.onRetry?.({ call: call.name, attempt: retry, delayMs, error });
        span?.addEvent(EVENT.retry, { [ATTR.attempt]: retry, [RETRY_IN_MS]: delayMs, [ATTR.errorType]: error.code });
        await this.sleep(delayMs);
      }
    }
  }

  private async once(call: Call): Promise<unknown> {
    const url = `${this.baseUrl}${call.path}${call.query && call.query.size > 0 ? `?${call.query.toString()}` : ''}`;
    const headers: Record<string, string> = {
      authorization: this.authorization,
      accept: 'application/json',
      'user-agent': this.options.userAgent ?? 'agent-bridge',
    };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const started = this.now();
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: call.method,
        headers,
        ...(call.body !== undefined && { body: JSON.stringify(call.body) }),
        dispatcher: this.dispatcher,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (error) {
      this.options.onRequest?.({ call: call.name, status: 0, durationMs: this.now() - started });
      throw errorFromTransport(call.name, error);
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      this.options.onRequest?.({ call: call.name, status: 0, durationMs: this.now() - started });
      throw errorFromTransport(call.name, error);
    }
    this.options.onRequest?.({ call: call.name, status: response.statusCode, durationMs: this.now() - started });
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const retryAfter = parseRetryAfter(response.headers['retry-after'], this.now());
      // A server that quotes our key back in its error (a proxy echoing the header) must not put it
      // into the error's detail, which people may read in Slack, Linear or /readyz.
      const detail = this.options.apiKey ? text.split(this.options.apiKey).join('[redacted]') : text;
      throw errorFromResponse(call.name, response.statusCode, detail, retryAfter);
    }
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      throw new AgentApiError(`${call.name} returned a body that is not JSON`, { kind: 'invalid_response', retryable: false });
    }
  }
}

function toSearchParams(query: ListRunsQuery): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, String(item));
    else params.append(key, String(value));
  }
  return params;
}
