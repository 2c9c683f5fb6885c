import { describe, expect, it } from 'vitest';
import type { TriggerInput } from '../core/ports/triggers.js';
import { readAssistantThread, withAssistantStatus } from './assistant.js';

const thread = (fields: Record<string, unknown>) => ({
  type: 'assistant_thread_started',
  assistant_thread: { user_id: 'U0A', channel_id: 'D0A', thread_ts: '1.2', ...fields },
});

describe('readAssistantThread', () => {
  it.each([
    ['a started thread', thread({}), { user: 'U0A', channel: 'D0A', threadTs: '1.2' }],
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
