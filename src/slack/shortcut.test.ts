import { describe, expect, it } from 'vitest';
import { readMessageShortcut, sendToAgentTrigger } from './shortcut.js';

const valid = { user: { id: 'U1' }, channel: { id: 'C1' }, message: { ts: '1.2', text: 'fix it', user: 'U2' } };

describe('readMessageShortcut', () => {
  it.each([
    ['a message_action', valid, { user: 'U1', channel: 'C1', message: { ts: '1.2', text: 'fix it', user: 'U2' } }],
    [
      'the person’s own workspace, not the one the app is installed in',
      { ...valid, user: { id: 'U1', team_id: 'T0GUEST' }, team: { id: 'T0OURS' } },
      { user: 'U1', orgs: ['T0GUEST'] },
    ],
    ['a reply keeps its thread', { ...valid, message: { ...valid.message, thread_ts: '1.0' } }, { message: { thread_ts: '1.0' } }],
    ['null', null, undefined],
    ['a string', 'payload', undefined],
    ['no user', { ...valid, user: undefined }, undefined],
    ['a user id that is a number', { ...valid, user: { id: 7 } }, undefined],
    ['no channel (a global shortcut)', { user: valid.user }, undefined],
    ['no message', { ...valid, message: undefined }, undefined],
    ['a message without ts', { ...valid, message: { text: 'x' } }, undefined],
    ['text that is not a string', { ...valid, message: { ts: '1.2', text: { a: 1 } } }, undefined],
    // The run's place is made of the channel and ts: one not shaped as Slack's could never be reported to.
    ['a channel with extra parts', { ...valid, channel: { id: 'C1:evil:1' } }, undefined],
    ['a channel name instead of its id', { ...valid, channel: { id: 'general' } }, undefined],
    ['a ts that is a path', { ...valid, message: { ...valid.message, ts: '../../1.2' } }, undefined],
    ['a ts without its sequence', { ...valid, message: { ...valid.message, ts: '1710000000' } }, undefined],
    ['a thread ts with extra parts', { ...valid, message: { ...valid.message, thread_ts: '1.0:evil' } }, undefined],
    ['a thread ts that is a number', { ...valid, message: { ...valid.message, thread_ts: 1.0 } }, undefined],
  ])('%s', (_name, body, expected) => {
    const read = readMessageShortcut(body);
    if (expected === undefined) expect(read).toBeUndefined();
    else expect(read).toMatchObject(expected);
  });
});

describe('sendToAgentTrigger', () => {
  it('quotes the message, reports in its thread and names the message as the reference', () => {
    const trigger = sendToAgentTrigger({
      user: 'U1',
      orgs: ['T1'],
      channel: 'C1',
      message: { ts: '5.0', thread_ts: '4.0', text: 'stop the &lt;build&gt;\nnow', user: 'U2' },
    });
    expect(trigger).toMatchObject({
      kind: 'start',
      key: 'slack:send:C1:5.0',
      anchor: 'slack:C1:4.0',
      payload: {
        prompt: 'Do what this Slack message (by <@U2>) asks:\n> stop the <build>\n> now',
        title: 'stop the <build>',
        destinations: ['slack:C1:4.0'],
        reference: { channel: 'C1', ts: '5.0' },
        requester: { id: 'U1', orgs: ['T1'] },
        followupIfLinked: true,
      },
    });
  });

  it('a message that is only whitespace or files starts nothing', () => {
    expect(sendToAgentTrigger({ user: 'U1', orgs: ['T1'], channel: 'C1', message: { ts: '5.0', text: '  ' } })).toBeUndefined();
  });
});
