import { describe, expect, it } from 'vitest';
import { answerError, answerModal, answerTrigger, readAnswerClick, readAnswerSubmission, refusalModal, type AnswerTarget } from './answer.js';

const TARGET: AnswerTarget = { runId: 'run_1', channel: 'C0WEB', threadTs: '1700000000.000100', messageTs: '1700000000.000300' };

const click = (over: Record<string, unknown> = {}, action: Record<string, unknown> = {}) => ({
  type: 'block_actions',
  user: { id: 'U0ADA', team_id: 'T0ADA' },
  trigger_id: '1.2.3',
  container: { type: 'message', channel_id: 'C0WEB', message_ts: TARGET.messageTs, thread_ts: TARGET.threadTs },
  actions: [{ action_id: 'answer_run', value: 'run_1', ...action }],
  ...over,
});

describe('readAnswerClick', () => {
  it('reads who clicked, the trigger id and where', () => {
    expect(readAnswerClick(click())).toEqual({ user: 'U0ADA', orgs: ['T0ADA'], triggerId: '1.2.3', target: TARGET });
  });

  it('a top-level announcement is its own thread', () => {
    const body = click({ container: { type: 'message', channel_id: 'C0WEB', message_ts: TARGET.messageTs } });
    expect(readAnswerClick(body)?.target.threadTs).toBe(TARGET.messageTs);
  });

  it.each([
    ['no user', click({ user: null })],
    ['a user id that is not one', click({ user: { id: 'ada' } })],
    ['no trigger id', click({ trigger_id: 7 })],
    ['no Answer action', click({ actions: [{ action_id: 'cancel_run', value: 'run_1' }] })],
    ['a run id with spaces', click({}, { value: 'run 1; drop' })],
    ['a run id that is not a string', click({}, { value: { id: 'run_1' } })],
    ['a channel with extra parts', click({ container: { channel_id: 'C0WEB:1.2', message_ts: '1.2' } })],
    ['no message ts', click({ container: { channel_id: 'C0WEB' } })],
    ['actions not a list', click({ actions: 'answer_run' })],
    ['null', null],
  ])('%s: undefined', (_name, body) => {
    expect(readAnswerClick(body)).toBeUndefined();
  });
});

const submission = (over: { metadata?: unknown; value?: unknown; user?: unknown; viewId?: unknown } = {}) => ({
  type: 'view_submission',
  user: { id: 'user' in over ? over.user : 'U0ADA', team_id: 'T0ADA' },
  view: {
    id: 'viewId' in over ? over.viewId : 'V123',
    callback_id: 'answer_run',
    private_metadata: 'metadata' in over ? over.metadata : JSON.stringify(TARGET),
    state: { values: { answer: { text: { value: 'value' in over ? over.value : 'Orders first.' } } } },
  },
});

describe('readAnswerSubmission', () => {
  it('reads the answer and the target the modal carried', () => {
    expect(readAnswerSubmission(submission())).toEqual({ user: 'U0ADA', orgs: ['T0ADA'], viewId: 'V123', text: 'Orders first.', target: TARGET });
  });

  it('a missing value reads as empty (refused by answerError)', () => {
    const read = readAnswerSubmission(submission({ value: 42 }));
    expect(read?.text).toBe('');
    expect(read && answerError(read)).toBe('Write your answer to the agent.');
  });

  it.each([
    ['metadata that is not JSON', submission({ metadata: '{run' })],
    ['metadata that is not a string', submission({ metadata: { runId: 'run_1' } })],
    ['metadata without a run', submission({ metadata: JSON.stringify({ ...TARGET, runId: undefined }) })],
    ['metadata naming a channel of the wrong shape', submission({ metadata: JSON.stringify({ ...TARGET, channel: 'general' }) })],
    ['metadata that is a list', submission({ metadata: '[1,2]' })],
    ['no view id', submission({ viewId: 7 })],
    ['no user', submission({ user: 7 })],
    ['null', null],
  ])('%s: undefined', (_name, body) => {
    expect(readAnswerSubmission(body)).toBeUndefined();
  });

  it('an answer over the limit is refused', () => {
    const read = readAnswerSubmission(submission({ value: 'x'.repeat(3001) }));
    expect(read && answerError(read)).toMatch(/under 3000 characters/);
  });
});

describe('the modal and the follow-up', () => {
  it('the modal carries the target and escapes the title', () => {
    const view = answerModal(TARGET, { runId: 'run_1', title: 'Fix <@here> now' });
    expect(view.callback_id).toBe('answer_run');
    expect(JSON.parse(view.private_metadata ?? '')).toEqual(TARGET);
    expect(JSON.stringify(view.blocks)).toContain('Fix &lt;@here&gt; now');
  });

  it('a refusal modal has no submit button and escapes the reason', () => {
    const view = refusalModal('no <!channel>');
    expect(view.submit).toBeUndefined();
    expect(JSON.stringify(view.blocks)).toContain('no &lt;!channel&gt;');
  });

  it('one follow-up to the named run, keyed by the view, placed in the thread, acknowledged on the announcement', () => {
    const read = readAnswerSubmission(submission({ value: '  Orders first.\n' }));
    expect(read && answerTrigger(read)).toEqual({
      kind: 'followup',
      key: 'slack:answer:V123',
      source: 'slack',
      anchor: `slack:C0WEB:${TARGET.threadTs}`,
      payload: {
        message: 'Orders first.',
        runId: 'run_1',
        requester: { platform: 'slack', id: 'U0ADA', name: '<@U0ADA>', orgs: ['T0ADA'] },
        reference: { channel: 'C0WEB', ts: TARGET.messageTs },
      },
    });
  });
});
