import { describe, expect, it } from 'vitest';
import { parseAgentCommand, promptCommandTrigger, statusText } from './agent-command.js';

describe('parseAgentCommand', () => {
  it.each([
    ['', { kind: 'help' }],
    ['help', { kind: 'help' }],
    ['HELP me', { kind: 'help' }],
    ['status', { kind: 'status' }],
    ['cancel run_123', { kind: 'cancel', runId: 'run_123' }],
    ['cancel', { kind: 'cancel', runId: undefined }],
    ['connect', { kind: 'connect' }],
    ['Disconnect', { kind: 'disconnect' }],
    ['whoami ', { kind: 'whoami' }],
    ['connect the billing service', { kind: 'prompt', text: 'connect the billing service' }],
    ['whoami and what can you do', { kind: 'prompt', text: 'whoami and what can you do' }],
    ['fix the status page', { kind: 'prompt', text: 'fix the status page' }],
    ['  cancelled builds should retry', { kind: 'prompt', text: 'cancelled builds should retry' }],
  ])('%j', (text, command) => {
    expect(parseAgentCommand(text)).toEqual(command);
  });
});

describe('promptCommandTrigger', () => {
  it('the prompt and title are what was typed: escapes decoded once (issue 16)', () => {
    const trigger = promptCommandTrigger({ channel_id: 'C1', user_id: 'U1', trigger_id: '1.2.3' }, 'compare &lt;b&gt; &amp; <#C2|dev>');
    expect(trigger).toMatchObject({ key: 'slack:cmd:1.2.3', payload: { prompt: 'compare <b> & #dev', title: 'compare <b> & #dev' } });
  });
});

describe('statusText', () => {
  const run = {
    runId: 'run_1',
    anchor: 'slack:C1:1.1',
    source: 'slack',
    title: 'Fix <b>',
    route: {},
    destinations: [],
    triggerKey: null,
    state: 'INPROGRESS',
    serverUpdatedAt: null,
    sessionLink: 'https://s/1',
    transition: 2,
    workflowMoves: [],
    tracked: true,
    lastSeenAt: null,
    createdAt: 0,
    updatedAt: 0,
  };
  it('lists title, state, age and link, escaped', () => {
    expect(statusText([run], 3 * 3_600_000)).toBe(
      'Active runs in this channel (1):\n• *Fix &lt;b&gt;* — INPROGRESS — 3 h — <https://s/1|open session> (`run_1`)',
    );
  });
  it('says when there is nothing', () => {
    expect(statusText([], 0)).toBe('No active runs in this channel.');
  });
});
