import { STATUS_CODES } from 'node:http';
import { Agent, request, type Dispatcher } from 'undici';

/**
 * The `fetch` our `WebClient`s are given (`WebClientOptions.fetch`: Bolt's client for listeners and
 * modals, Socket Mode's, `auth.test` at start): the same HTTP exchange over undici's `request` on one
 * keep-alive pool instead of the global `fetch`. The client sends every call as a form-encoded string;
 * the global `fetch` wraps that string in a web stream, a `Request`, an abort controller and a
 * `Response` per call, which cost about a fifth of the CPU of a worked mention (docs/benchmarks.md,
 * "CPU per worked trigger"). The outbox side's calls skip WebClient altogether (slack-web-api.ts) but
 * share the pool. A body that is not a string (a file upload's form data) still goes through the
 * global `fetch`.
 *
 * Errors keep `fetch`'s shapes, which `slack-errors.ts` reads: a network failure is a `TypeError` whose
 * `cause` carries the system code (ECONNREFUSED, …), and an aborted or timed-out call rejects with the
 * signal's reason (`AbortError`, `TimeoutError`).
 */
export const slackFetch: typeof fetch = async (input, init) => {
  const body = init?.body;
  if (body !== undefined && body !== null && typeof body !== 'string') return globalThis.fetch(input, init);
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const signal = init?.signal ?? undefined;
  let answer: Dispatcher.ResponseData;
  try {
    answer = await request(url, {
      method: init?.method ?? 'GET',
      headers: plainHeaders(init?.headers),
      ...(typeof body === 'string' && { body }),
      ...(signal && { signal }),
      dispatcher: slackPool(),
    });
  } catch (error) {
    throw signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error });
  }
  const bytes = Buffer.from(await answer.body.arrayBuffer());
  return new SlackResponse(url, answer.statusCode, answer.headers, bytes) as unknown as Response;
};

let shared: Agent | undefined;
/** One keep-alive pool for every Slack client of the process (this `fetch` and `SlackWebApi`), as the global `fetch` has one. */
export const slackPool = (): Agent => (shared ??= new Agent({ keepAliveTimeout: 10_000 }));

function plainHeaders(headers: RequestInit['headers']): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  const pairs: Iterable<readonly [string, string | readonly string[]]> = Array.isArray(headers)
    ? (headers as Array<[string, string]>)
    : Object.entries(headers);
  const plain: Record<string, string> = {};
  for (const [name, value] of pairs) plain[name] = typeof value === 'string' ? value : value.join(', ');
  return plain;
}

/** The part of `Response` the Web API client reads: status, headers, url and the body once. */
class SlackResponse {
  readonly headers: SlackHeaders;
  readonly statusText: string;
  readonly ok: boolean;
  constructor(
    readonly url: string,
    readonly status: number,
    headers: Record<string, string | string[] | undefined>,
    private readonly bytes: Buffer,
  ) {
    this.headers = new SlackHeaders(headers);
    this.statusText = STATUS_CODES[status] ?? '';
    this.ok = status >= 200 && status < 300;
  }
  text(): Promise<string> {
    return Promise.resolve(this.bytes.toString('utf8'));
  }
  json(): Promise<unknown> {
    return this.text().then((text) => JSON.parse(text) as unknown);
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    const copy = new ArrayBuffer(this.bytes.length);
    new Uint8Array(copy).set(this.bytes);
    return Promise.resolve(copy);
  }
}

/** `Headers`' reading side over undici's lower-cased header record. */
class SlackHeaders {
  private readonly values: Map<string, string>;
  constructor(raw: Record<string, string | string[] | undefined>) {
    this.values = new Map();
    for (const [name, value] of Object.entries(raw)) {
      if (value !== undefined) this.values.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
    }
  }
  get(name: string): string | null {
    return this.values.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.values.has(name.toLowerCase());
  }
  entries(): IterableIterator<[string, string]> {
    return this.values.entries();
  }
  forEach(fn: (value: string, name: string) => void): void {
    this.values.forEach((value, name) => fn(value, name));
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.values.entries();
  }
}
