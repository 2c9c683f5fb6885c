import { describe, expect, it } from 'vitest';
import type { TriggerInput } from '../core/ports/triggers.js';
import { readAssistantThread, withAssistantStatus, withContextRoute } from './assistant.js';

const thread = (fields: Record<string, unknown>) => ({
  type: 'assistant_thread_started',
  assistant_thread: { user_id: 'U0A', channel_id: 'D0A', thread_ts: '1.2', ...fields },
});

describe('readAssistantThread', () => {
  it.each([
    ['a started thread', thread({}), { user: 'U0A', channel: 'D0A', threadTs: '1.2', contextChannel: '' }],
    ['with the channel looked at', thread({ context: { channel_id: 'C0WEB' } }), { user: 'U0A', channel: 'D0A', threadTs: '1.2', contextChannel: 'C0WEB' }],
    ['looking at a DM: no channel', thread({ context: { channel_id: 'D0B' } }), { user: 'U0A', channel: 'D0A', threadTs: '1.2', contextChannel: '' }],
    [
      'a context channel of the wrong shape',
      thread({ context: { channel_id: 'C0A:1.2' } }),
      { user: 'U0A', channel: 'D0A', threadTs: '1.2', contextChannel: '' },
    ],
    ['a context that is not an object', thread({ context: 'C0WEB' }), { user: 'U0A', channel: 'D0A', threadTs: '1.2', contextChannel: '' }],
    ['a thread outside a DM', thread({ channel_id: 'C0A' }), undefined],
    ['a ts that is not one', thread({ thread_ts: '1.2:x' }), undefined],
    ['a user id that is not one', thread({ user_id: 'someone' }), undefined],
    ['a number for the channel', thread({ channel_id: 7 }), undefined],
    ['no assistant_thread', { type: 'assistant_thread_started' }, undefined],
    ['assistant_thread null', { assistant_thread: null }, undefined],
    ['null', null, undefined],
  ])('%s', (_name, event, expected) => {
    expect(readAssistantThread(event)).toEqual(expected);
  });
});

describe('withAssistantStatus', () => {
  const start = (anchor: string): TriggerInput => ({
    kind: 'start',
    key: 'k',
    source: 'slack',
    anchor,
    payload: { prompt: 'p', title: 't', origin: { source: 'slack', channel: 'D0A' }, destinations: [anchor] },
  });

  it.each([
    ['a DM thread reports to its panel too', 'slack:D0A:1.2', ['slack:D0A:1.2', 'slack:assistant:D0A:1.2']],
    ['a channel thread does not', 'slack:C0A:1.2', ['slack:C0A:1.2']],
    ['nor a run started from the Home tab', 'slack:U0A:home-V1', ['slack:U0A:home-V1']],
  ])('%s', (_name, anchor, destinations) => {
    const trigger = withAssistantStatus(start(anchor));
    expect(trigger.kind === 'start' && trigger.payload.destinations).toEqual(destinations);
  });
});

describe('withContextRoute', () => {
  const start = (anchor: string): TriggerInput => ({
    kind: 'start',
    key: 'k',
    source: 'slack',
    anchor,
    payload: { prompt: 'p', title: 't', origin: { source: 'slack', channel: 'D0A' }, destinations: [anchor] },
  });
  const settings = (values: Record<string, string>) => ({ get: (name: string) => Promise.resolve(values[name]) });
  const originOf = (trigger: TriggerInput) => (trigger.kind === 'start' ? trigger.payload.origin : undefined);
  const routed = new Set(['C0WEB']);

  it.each([
    ['the channel looked at has a route: its route', 'slack:D0A:1.2', { 'assistant_context:D0A:1.2': 'C0WEB' }, 'C0WEB'],
    ['a channel without a route of its own: the DM route', 'slack:D0A:1.2', { 'assistant_context:D0A:1.2': 'C0OTHER' }, 'D0A'],
    ['no channel looked at', 'slack:D0A:1.2', { 'assistant_context:D0A:1.2': '' }, 'D0A'],
    ['a thread never opened as an assistant thread', 'slack:D0A:1.2', {}, 'D0A'],
    ['a channel thread is never rerouted', 'slack:C0A:1.2', { 'assistant_context:C0A:1.2': 'C0WEB' }, 'D0A'],
  ])('%s', async (_name, anchor, values, channel) => {
    expect(originOf(await withContextRoute(start(anchor), settings(values), routed))).toEqual({ source: 'slack', channel });
  });

  it('leaves follow-ups alone', async () => {
    const followup: TriggerInput = { kind: 'followup', key: 'k', source: 'slack', anchor: 'slack:D0A:1.2', payload: { message: 'm' } };
    expect(await withContextRoute(followup, settings({ 'assistant_context:D0A:1.2': 'C0WEB' }), routed)).toBe(followup);
  });
});
