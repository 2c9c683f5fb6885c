import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../test/core/capturing-logger.js';
import { startFakeSlackApi, type FakeSlackApi } from '../../test/fakes/slack-api.js';
import type { OutboxMessage } from '../core/ports/messages.js';
import { NotifierError } from '../core/ports/notifier.js';
import { SlackSessions, showsSlackSession } from './agent-session.js';
import { SlackNotifier } from './slack-notifier.js';
import { SlackWebApi } from './slack-web-api.js';

/* A `session` row as agents.sessions.setStatus, against the fake Web API through the real WebClient. */

let fake: FakeSlackApi;
let logger: CapturingLogger;
let sessions: SlackSessions;
const C = 'C0CHANNEL01';
const T = '1700000000.000100';
const THREAD = { channel: C, threadTs: T };
const opening: Extract<OutboxMessage, { kind: 'session' }> = {
  kind: 'session',
  phase: 'working',
  title: 'Fix the build',
  receivedKey: 'received:Ev1:slack:C0CHANNEL01:1700000000.000100',
  opening: true,
  initiator: { platform: 'slack', id: 'U0HUMAN001' },
};

beforeAll(async () => {
  fake = await startFakeSlackApi({ token: 'xoxb-test' });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  logger = new CapturingLogger();
  // The client as the service builds it (slack-app.ts): its own warnings off, said once by SlackSessions.
  const client = new SlackWebApi({ token: 'xoxb-test', apiUrl: fake.url, logger, warnings: false });
  sessions = new SlackSessions({ client, logger });
});

describe('SlackSessions', () => {
  it('maps each phase to Slack’s status: working → processing, waiting → suspended, idle → active', async () => {
    expect(await sessions.set(THREAD, opening)).toEqual({ status: 'processing' });
    expect(await sessions.set(THREAD, { ...opening, phase: 'waiting', opening: undefined, initiator: undefined })).toEqual({ status: 'suspended' });
    expect(await sessions.set(THREAD, { ...opening, phase: 'idle', opening: undefined, initiator: undefined })).toEqual({ status: 'active' });
    expect(fake.agentSession(C, T)).toMatchObject({ title: 'Fix the build', initiator: 'U0HUMAN001', statuses: ['processing', 'suspended', 'active'] });
  });

  it('creates the session without an initiator Slack will not take (not a member of the channel), and only a Slack person is one', async () => {
    fake.excludeFromChannel(C, 'U0HUMAN001');
    expect(await sessions.set(THREAD, opening)).toEqual({ status: 'processing' });
    expect(fake.agentSession(C, T)).toMatchObject({ initiator: undefined, statuses: ['processing'] });
    await sessions.set({ channel: C, threadTs: '1700000000.000200' }, { ...opening, initiator: { platform: 'linear', id: 'U0HUMAN002' } });
    expect(fake.callsTo('agents.sessions.setStatus').at(-1)?.args['initiator_user_id']).toBeUndefined();
  });

  it('the run’s first row renames a session the thread already had; a later row does not', async () => {
    await sessions.set(THREAD, { ...opening, title: 'An earlier run' });
    expect(await sessions.set(THREAD, opening)).toEqual({ status: 'processing', renamed: true });
    expect(await sessions.set(THREAD, { ...opening, opening: undefined, title: 'Something else' })).toEqual({ status: 'processing' });
    expect(fake.agentSession(C, T)).toMatchObject({ title: 'Fix the build', renames: ['Fix the build'] });
  });

  it('a refusal is skipped and said once per reason at warn; Slack’s own failure is thrown for the outbox to retry', async () => {
    fake.failNext('agents.sessions.setStatus', { error: 'missing_scope', count: 2 });
    expect(await sessions.set(THREAD, { ...opening, initiator: undefined })).toEqual({ skipped: 'missing_scope' });
    expect(await sessions.set(THREAD, { ...opening, initiator: undefined })).toEqual({ skipped: 'missing_scope' });
    expect(logger.at('warn').map((line) => line.msg)).toEqual([expect.stringContaining('Slack refused agents.sessions.setStatus (missing_scope)')]);
    fake.failNext('agents.sessions.setStatus', { status: 500 });
    const error = await sessions.set(THREAD, opening).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(NotifierError);
    expect(error).toMatchObject({ retryable: true, code: 'http_500' });
  });

  it('the missing stop subscription is said once at warn, naming the event and where to add it — not at every call', async () => {
    fake.setAgentSessionStopSubscribed(false);
    for (const threadTs of ['1700000000.000300', '1700000000.000400', '1700000000.000500']) await sessions.set({ channel: C, threadTs }, opening);
    const warnings = logger.at('warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toContain('agent_session_stopped');
    expect(warnings[0]?.msg).toContain('Event Subscriptions');
  });

  it('shows sessions in Slack threads and channels only, not in the Home tab, previews or the assistant panel', () => {
    expect(['slack:C0CHANNEL01:1700000000.000100', 'slack:C0CHANNEL01', 'slack:U0HUMAN001', 'slack:D0DIRECT01:1.2'].every(showsSlackSession)).toBe(true);
    expect(['slack:home:U1', 'slack:unfurl:C1', 'slack:assistant:D1:1.2', 'linear:ENG-1', 'log:cli', 'slack:c1'].some(showsSlackSession)).toBe(false);
  });
});

/*
 * A run's start owes its session change and its status edit as one row (core/session-rows.ts,
 * foldSessionRows): the notifier makes the session change first, as the session row used to be
 * delivered first, and a refused session never holds back the edit.
 */
describe('a status row carrying the session change', () => {
  const RECEIVED = 'received:Ev1:thread';
  let notifier: SlackNotifier;
  let results: Map<string, unknown>;
  let thread: string;
  beforeEach(async () => {
    const client = new SlackWebApi({ token: 'xoxb-test', apiUrl: fake.url, logger, warnings: false });
    notifier = new SlackNotifier({ client, sessions });
    results = new Map();
    thread = fake.addUserMessage({ channel: C, user: 'U0HUMAN001', text: '<@UBOT> fix the build' }).ts;
    const received = await notifier.deliver({
      key: RECEIVED,
      destination: `slack:${C}:${thread}`,
      message: { kind: 'received', title: 'Fix the build', reference: { channel: C, ts: thread } },
      attempt: 0,
      resultOf: async () => undefined,
    });
    results.set(RECEIVED, received);
  });
  const change = { phase: opening.phase, title: opening.title, opening: true as const, initiator: opening.initiator! };
  const status = () =>
    notifier.deliver({
      key: `run:run_1:0:slack:${C}:${thread}:status`,
      destination: `slack:${C}:${thread}`,
      message: { kind: 'status', run: { runId: 'run_1', title: 'Fix the build', state: 'QUEUED', pullRequests: [] }, receivedKey: RECEIVED, session: change },
      attempt: 0,
      resultOf: async (key) => results.get(key),
    });
  const methods = () => fake.calls.map((call) => call.method).filter((method) => method === 'agents.sessions.setStatus' || method === 'chat.update');

  it('sets the session first, with who asked and the title, then edits the status message', async () => {
    await status();
    expect(methods()).toEqual(['agents.sessions.setStatus', 'chat.update']);
    expect(fake.callsTo('agents.sessions.setStatus')[0]?.args).toMatchObject({
      channel_id: C,
      thread_ts: thread,
      status: 'processing',
      initiator_user_id: 'U0HUMAN001',
    });
    expect(fake.agentSession(C, thread)?.title).toBe('Fix the build');
  });

  it('a session Slack refuses is skipped and the status message is still edited', async () => {
    fake.failNext('agents.sessions.setStatus', { error: 'missing_scope', count: 2 });
    await status();
    expect(methods()).toEqual(['agents.sessions.setStatus', 'chat.update']);
  });

  it('a session Slack fails to set is retried with the row: the edit waits for it', async () => {
    fake.failNext('agents.sessions.setStatus', { status: 500 });
    await expect(status()).rejects.toMatchObject({ retryable: true, code: 'http_500' });
    expect(methods()).toEqual(['agents.sessions.setStatus']);
    await status();
    expect(methods()).toEqual(['agents.sessions.setStatus', 'agents.sessions.setStatus', 'chat.update']);
  });
});
