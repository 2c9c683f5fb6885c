import { describe, expect, it } from 'vitest';
import type { OutboxMessage, RunSnapshot } from '../ports/messages.js';
import { renderText } from './render-text.js';

const run = (overrides: Partial<RunSnapshot> = {}): RunSnapshot => ({
  runId: 'run_1',
  title: 'Fix the build',
  state: 'INPROGRESS',
  pullRequests: [],
  ...overrides,
});
const SESSION = 'https://agents.example.com/session/abc';
const announce = (overrides: Partial<RunSnapshot>, cancelledBy?: string): OutboxMessage => ({
  kind: 'announce',
  run: run(overrides),
  receivedKey: 'received:Ev1:slack:C1:1700.1',
  ...(cancelledBy === undefined ? {} : { cancelledBy }),
});

describe('renderText', () => {
  it.each<{ name: string; message: OutboxMessage; text: string }>([
    { name: 'received', message: { kind: 'received', title: 'Fix the build', requester: 'U1' }, text: 'Received: Fix the build — starting a run…' },
    {
      name: 'status with status text and session',
      message: { kind: 'status', run: run({ statusText: 'Running the tests', sessionLink: SESSION }), receivedKey: 'k' },
      text: `Fix the build: INPROGRESS — Running the tests\nSession: ${SESSION}`,
    },
    { name: 'status, bare', message: { kind: 'status', run: run({ state: 'QUEUED' }), receivedKey: 'k' }, text: 'Fix the build: QUEUED' },
    {
      name: 'status, unknown state shown as it is',
      message: { kind: 'status', run: run({ state: 'PAUSED' }), receivedKey: 'k' },
      text: 'Fix the build: PAUSED',
    },
    {
      name: 'announce SUCCEEDED with session and pull requests',
      message: announce({ state: 'SUCCEEDED', sessionLink: SESSION, pullRequests: ['https://github.com/o/r/pull/1', 'https://github.com/o/r/pull/2'] }),
      text: `✅ Done: Fix the build\nSession: ${SESSION}\nPull request: https://github.com/o/r/pull/1\nPull request: https://github.com/o/r/pull/2`,
    },
    { name: 'announce SUCCEEDED, bare', message: announce({ state: 'SUCCEEDED' }), text: '✅ Done: Fix the build' },
    {
      name: 'announce FAILED with session',
      message: announce({ state: 'FAILED', statusText: 'Tests failed', sessionLink: SESSION }),
      text: `❌ Fix the build FAILED: Tests failed. Try: reply to continue, or check the session\nSession: ${SESSION}`,
    },
    {
      name: 'announce ERROR whose text ends a sentence, no session',
      message: announce({ state: 'ERROR', statusText: 'Environment unavailable.' }),
      text: '❌ Fix the build ERROR: Environment unavailable. Try: reply to continue',
    },
    { name: 'announce FAILED without status text', message: announce({ state: 'FAILED' }), text: '❌ Fix the build FAILED. Try: reply to continue' },
    { name: 'announce CANCELLED by someone', message: announce({ state: 'CANCELLED' }, '<@U1>'), text: 'Cancelled by <@U1>' },
    { name: 'announce CANCELLED', message: announce({ state: 'CANCELLED' }), text: 'Cancelled' },
    {
      name: 'announce BLOCKED',
      message: announce({ state: 'BLOCKED', statusText: 'Which database should I migrate?', sessionLink: SESSION }),
      text: `⏸ Fix the build needs your input: Which database should I migrate? Reply in this thread to answer.\nSession: ${SESSION}`,
    },
    {
      name: 'announce BLOCKED without status text',
      message: announce({ state: 'BLOCKED' }),
      text: '⏸ Fix the build needs your input. Reply in this thread to answer.',
    },
    { name: 'announce of an unknown state', message: announce({ state: 'ARCHIVED', statusText: 'gone' }), text: 'Fix the build: ARCHIVED — gone' },
    {
      name: 'failed',
      message: { kind: 'failed', title: 'Fix the build', reason: 'the run API is at capacity; retry shortly', receivedKey: 'k' },
      text: 'Could not start Fix the build: the run API is at capacity; retry shortly',
    },
    { name: 'followup_accepted', message: { kind: 'followup_accepted', runId: 'run_1', reference: { ts: '1.2' } }, text: 'Follow-up delivered to run run_1' },
    { name: 'notice', message: { kind: 'notice', text: 'This thread has no run yet.' }, text: 'This thread has no run yet.' },
  ])('$name', ({ message, text }) => {
    expect(renderText(message)).toBe(text);
  });

  it('names a kind it does not know instead of throwing (rows written by a newer version)', () => {
    expect(renderText({ kind: 'reaction', emoji: 'tada' } as unknown as OutboxMessage)).toBe('(message of kind reaction)');
  });
});
