import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlackApi } from '../../test/fakes/slack-api.js';
import type { Logger } from '../core/ports/logger.js';
import { secretScrubber } from '../core/scrub.js';
import { createLogger } from '../log/create-logger.js';
import { boltLogger } from './bolt-logger.js';
import { webClientOptions } from './slack-app.js';
import type { SlackCalls } from './slack-calls.js';
import { toNotifierError } from './slack-errors.js';
import { SlackWebApi } from './slack-web-api.js';
import { slackDisplayName, slackUserByEmail } from './user-directory.js';

const TOKEN = 'xoxb-1234-5678-SECRETsecret';
const WORDS = 'the words of a private message';
/** Short enough for a test, the same for both clients. */
/** The timeout of the case of a server that never answers; every other case waits long, so a loaded machine's slow answer is still an answer. */
const SILENT_TIMEOUT_MS = 200;
const TIMEOUT_MS = 30_000;

/** How the test server answers the next call; `silent` never answers. */
type Answer = { status?: number; headers?: Record<string, string>; body?: string; silent?: true };
let next: Answer = {};
const received: Array<{ url: string | undefined; headers: IncomingHttpHeaders; body: string }> = [];
const held: ServerResponse[] = [];
let server: Server;
let url: string;
let closedUrl: string;

function listen(target: Server): Promise<string> {
  return new Promise((resolve) => target.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(target.address() as AddressInfo).port}/api/`)));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (next.silent) return void held.push(res);
      res.writeHead(next.status ?? 200, { 'content-type': 'application/json; charset=utf-8', ...next.headers });
      res.end(next.body ?? JSON.stringify({ ok: true }));
    });
  });
  url = await listen(server);
  const closed = createServer();
  closedUrl = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
});
afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  next = {};
  received.length = 0;
});

/** A logger that keeps every line as text, with debug on. */
function recordingLogger(): Logger & { lines: Array<{ level: string; text: string }> } {
  const lines: Array<{ level: string; text: string }> = [];
  const at =
    (level: string) =>
    (fields: object, message?: string): void =>
      void lines.push({ level, text: `${JSON.stringify(fields)} ${message ?? ''}` });
  const logger = { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => logger, isLevelEnabled: () => true };
  return logger;
}

/** The WebClient as slack-app.ts builds it, and the thin client, both pointed at `apiUrl`. */
function clients(
  apiUrl: string,
  logger = recordingLogger(),
  timeoutMs = TIMEOUT_MS,
): { webClient: SlackCalls; thin: SlackWebApi; logger: ReturnType<typeof recordingLogger> } {
  const webClient = new WebClient(TOKEN, { ...webClientOptions(apiUrl, boltLogger(recordingLogger(), secretScrubber([TOKEN]))), timeout: timeoutMs });
  return { webClient, thin: new SlackWebApi({ token: TOKEN, apiUrl, logger, timeoutMs }), logger };
}

/** What a postMessage through `client` comes to: Slack's warnings when it succeeds, else its NotifierError's fields and the raw error. */
async function outcome(client: SlackCalls): Promise<{ seen: object; raw?: unknown }> {
  try {
    const answer = await client.chat.postMessage({ channel: 'C1', text: WORDS });
    return { seen: { ok: true, warnings: answer.response_metadata?.warnings } };
  } catch (error) {
    const { code, retryable, retryAfterMs, message } = toNotifierError(error, 'chat.postMessage');
    return { seen: { code, retryable, retryAfterMs, message }, raw: error };
  }
}

const json = (body: object): string => JSON.stringify(body);

describe('SlackWebApi against WebClient, answer for answer', () => {
  it.each<[string, Answer | 'closed port', object]>([
    ['ok', { body: json({ ok: true, ts: '1.2', response_metadata: { warnings: ['superfluous_charset'] } }) }, { ok: true, warnings: ['superfluous_charset'] }],
    ['ok:false channel_not_found', { body: json({ ok: false, error: 'channel_not_found' }) }, { code: 'channel_not_found', retryable: false }],
    ['ok:false ratelimited in a 200', { body: json({ ok: false, error: 'ratelimited' }) }, { code: 'ratelimited', retryable: true }],
    [
      'HTTP 429 with Retry-After: 7',
      { status: 429, headers: { 'retry-after': '7' }, body: json({ ok: false, error: 'ratelimited' }) },
      { code: 'rate_limited', retryable: true, retryAfterMs: 7000 },
    ],
    ['HTTP 429 without Retry-After', { status: 429, body: json({ ok: false, error: 'ratelimited' }) }, { code: 'unexpected_error', retryable: true }],
    ['HTTP 500', { status: 500, body: 'oops' }, { code: 'http_500', retryable: true }],
    ['HTTP 503', { status: 503, body: json({ ok: false }) }, { code: 'http_503', retryable: true }],
    ['a closed port', 'closed port', { code: 'request_error', retryable: true, message: 'Slack chat.postMessage request failed (ECONNREFUSED)' }],
    ['a server that never answers', { silent: true }, { code: 'request_error', retryable: true, message: 'Slack chat.postMessage request failed (timeout)' }],
    ['a body that is not JSON', { body: '<html>Bad gateway</html>' }, { code: '<html>Bad gateway</html>', retryable: false }],
  ])('%s: the same outcome from both', async (_case, answer, expected) => {
    const silent = answer !== 'closed port' && answer.silent === true;
    const { webClient, thin, logger } = clients(answer === 'closed port' ? closedUrl : url, recordingLogger(), silent ? SILENT_TIMEOUT_MS : TIMEOUT_MS);
    if (answer !== 'closed port') next = answer;
    const ours = await outcome(thin);
    const theirs = await outcome(webClient);
    expect(ours.seen).toMatchObject(expected);
    expect(ours.seen).toEqual(theirs.seen);
    if (ours.raw !== undefined) expect((ours.raw as Error).constructor).toBe((theirs.raw as Error).constructor);
    // Neither the token nor the message's words reach an error or a log line.
    const said = [
      ...logger.lines.map((line) => line.text),
      json(ours.seen),
      String(ours.raw),
      (ours.raw as Error | undefined)?.stack ?? '',
      json({ ...(ours.raw as object) }),
    ];
    for (const text of said) {
      expect(text).not.toContain('SECRET');
      expect(text).not.toContain(WORDS);
    }
  });
});

describe('SlackWebApi', () => {
  it('sends what WebClient sends: URL, headers and the form-encoded body', async () => {
    const { webClient, thin } = clients(url);
    const args = {
      channel: 'C1',
      text: 'fallback & more = 100%',
      thread_ts: '1700000000.000100',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*hi* <@U1> é 🎉' } }],
      metadata: { event_type: 'run', event_payload: { id: 7 } },
      unfurl_links: false,
      reply_broadcast: undefined,
    };
    await thin.chat.postMessage(args);
    await webClient.chat.postMessage(args);
    const [ours, theirs] = received;
    expect(ours?.url).toBe('/api/chat.postMessage');
    expect(ours?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(ours?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(new URLSearchParams(ours?.body).get('blocks')).toBe(JSON.stringify(args.blocks));
    expect(ours).toEqual(theirs);
  });

  it('logs one debug line per call, naming the method and how it ended, and nothing of the call', async () => {
    const { thin, logger } = clients(url);
    await thin.reactions.add({ channel: 'C1', timestamp: '1.2', name: 'eyes' });
    next = { body: json({ ok: false, error: 'already_reacted' }) };
    await expect(thin.reactions.add({ channel: 'C1', timestamp: '1.2', name: 'eyes' })).rejects.toMatchObject({ code: 'slack_webapi_platform_error' });
    next = { status: 502 };
    await expect(thin.chat.update({ channel: 'C1', ts: '1.2', text: WORDS })).rejects.toMatchObject({ statusCode: 502 });
    expect(logger.lines).toEqual([
      { level: 'debug', text: `${json({ method: 'reactions.add', outcome: 'ok' })} Slack Web API call` },
      { level: 'debug', text: `${json({ method: 'reactions.add', outcome: 'already_reacted' })} Slack Web API call` },
      { level: 'debug', text: `${json({ method: 'chat.update', outcome: 'http_502' })} Slack Web API call` },
    ]);
  });

  it("says Slack's warnings at warn unless told not to", async () => {
    const said = recordingLogger();
    const quiet = recordingLogger();
    const loud = new SlackWebApi({ token: TOKEN, apiUrl: url, logger: said });
    const silent = new SlackWebApi({ token: TOKEN, apiUrl: url, logger: quiet, warnings: false });
    next = { body: json({ ok: true, response_metadata: { warnings: ['missing_agent_session_stopped_event_subscription'] } }) };
    await loud.agents.sessions.setStatus({ channel_id: 'C1', thread_ts: '1.2', status: 'processing' });
    await silent.agents.sessions.setStatus({ channel_id: 'C1', thread_ts: '1.2', status: 'processing' });
    expect(said.lines.filter((line) => line.level === 'warn').map((line) => line.text)).toEqual([
      `${json({ method: 'agents.sessions.setStatus', warnings: ['missing_agent_session_stopped_event_subscription'] })} Slack warned about agents.sessions.setStatus`,
    ]);
    expect(quiet.lines.filter((line) => line.level === 'warn')).toEqual([]);
  });
});

describe('the people lookups at LOG_LEVEL=debug (docs/people.md)', () => {
  it('log users.lookupByEmail and users.info by method and outcome, without the address or the token', async () => {
    const email = 'ada.lovelace@example.com';
    const slack = await startFakeSlackApi({ token: TOKEN });
    slack.setUser('U0ADA00001', { display_name: 'ada', email });
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', secrets: [], destination: { write: (line: string) => void lines.push(line) } });
    const thin = new SlackWebApi({ token: TOKEN, apiUrl: slack.url, logger });
    try {
      expect(await slackUserByEmail(thin, email)).toBe('U0ADA00001');
      expect(await slackDisplayName(thin, 'U0ADA00001')).toBe('ada');
    } finally {
      await slack.close();
    }
    const said = lines.map((line) => JSON.parse(line) as { method?: string; outcome?: string });
    expect(said.map(({ method, outcome }) => ({ method, outcome }))).toEqual([
      { method: 'users.lookupByEmail', outcome: 'ok' },
      { method: 'users.info', outcome: 'ok' },
    ]);
    const log = lines.join('');
    expect(log.toLowerCase()).not.toContain('example.com');
    expect(log).not.toContain('ada');
    expect(log).not.toContain('SECRET');
  });
});
