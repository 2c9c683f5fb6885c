import { describe, expect, it } from 'vitest';
import type { TriggerInput } from '../core/ports/triggers.js';
import { readContextChange, readMessagesOpened, readSessionStop, readViewedChannel, viewedChannelKey, withViewedChannelRoute } from './agent-view.js';

/* Slack's agent_view events as Slack's pages describe them, read defensively. */

const channel = (value: unknown) => ({ type: 'slack#/types/channel_id', value });

describe('the channel in view (app_context_changed)', () => {
  it('is the most relevant entity naming a channel, itself or a message in it; a DM or nothing in view is none', () => {
    expect(readViewedChannel({ entities: [{ type: 'slack#/types/canvas_id', value: 'F1' }, channel('C0WEB00001'), channel('C0API00001')] })).toBe('C0WEB00001');
    expect(readViewedChannel({ entities: [{ type: 'slack#/types/message_context', value: { channel_id: 'G0PRIV0001', message_ts: '1.2' } }] })).toBe(
      'G0PRIV0001',
    );
    expect(readViewedChannel({ entities: [channel('D0DIRECT01'), channel('C0WEB00001')] })).toBe('');
    expect(readViewedChannel({})).toBe('');
    expect(readViewedChannel({ entities: [] })).toBe('');
  });

  it('is not read from a context that is not Slack’s shape', () => {
    for (const context of [
      undefined,
      null,
      'C0WEB00001',
      [channel('C0WEB00001')],
      { entities: channel('C0WEB00001') },
      { entities: [null] },
      { entities: [{ value: 'C1' }] },
    ]) {
      expect(readViewedChannel(context)).toBeUndefined();
    }
  });

  it('belongs to the event’s user, else to the envelope’s one authorization when it is a person’s', () => {
    const context = { entities: [channel('C0WEB00001')] };
    expect(readContextChange({ type: 'app_context_changed', user: 'U0HUMAN001', context }, undefined)).toEqual({ user: 'U0HUMAN001', channel: 'C0WEB00001' });
    const person = { user_id: 'U0HUMAN002', is_bot: false };
    expect(readContextChange({ type: 'app_context_changed', context }, [person])).toEqual({ user: 'U0HUMAN002', channel: 'C0WEB00001' });
    expect(readContextChange({ type: 'app_context_changed', context }, [{ ...person, is_bot: true }])).toBeUndefined();
    expect(readContextChange({ type: 'app_context_changed', context }, [person, person])).toBeUndefined();
    expect(readContextChange({ type: 'app_context_changed', user: 'someone', context }, [person])).toBeUndefined();
  });
});

describe('the DM opened and the stop button', () => {
  it('app_home_opened is the DM opened only with tab "messages", in a DM, by a person', () => {
    const opened = { type: 'app_home_opened', user: 'U0HUMAN001', channel: 'D0DIRECT01', tab: 'messages' };
    expect(readMessagesOpened(opened)).toEqual({ user: 'U0HUMAN001', channel: 'D0DIRECT01', context: undefined });
    expect(readMessagesOpened({ ...opened, tab: 'home' })).toBeUndefined();
    expect(readMessagesOpened({ ...opened, channel: 'C0WEB00001' })).toBeUndefined();
  });

  it('agent_session_stopped names a thread and who pressed stop', () => {
    const stop = { type: 'agent_session_stopped', channel: 'C0WEB00001', thread_ts: '1782234671.392669', user: 'U0HUMAN001', streaming_message_ts: [] };
    expect(readSessionStop(stop)).toEqual({ channel: 'C0WEB00001', threadTs: '1782234671.392669', user: 'U0HUMAN001' });
    expect(readSessionStop({ ...stop, thread_ts: '1.2.3' })).toBeUndefined();
    expect(readSessionStop({ ...stop, channel: 'C0WEB00001:x' })).toBeUndefined();
    expect(readSessionStop({ ...stop, user: undefined })).toBeUndefined();
  });
});

describe('a DM request’s route (withViewedChannelRoute)', () => {
  const request = (channelId: string): TriggerInput => ({
    kind: 'start',
    key: 'k',
    source: 'slack',
    anchor: `slack:${channelId}:1.2`,
    payload: {
      prompt: 'x',
      title: 'x',
      origin: { source: 'slack', channel: channelId },
      destinations: [`slack:${channelId}:1.2`],
      requester: { platform: 'slack', id: 'U0HUMAN001' },
    },
  });
  const settings = (viewed: string | undefined) => ({ get: (name: string) => Promise.resolve(name === viewedChannelKey('U0HUMAN001') ? viewed : undefined) });
  const originOf = (trigger: TriggerInput) => (trigger.kind === 'start' ? trigger.payload.origin : undefined);

  it('is the viewed channel’s when it has a route of its own; else, and outside a DM, unchanged; the run still reports in the DM', async () => {
    const routed = new Set(['C0WEB00001']);
    const moved = await withViewedChannelRoute(request('D0DIRECT01'), settings('C0WEB00001'), routed);
    expect(originOf(moved)).toEqual({ source: 'slack', channel: 'C0WEB00001' });
    expect(moved.kind === 'start' && moved.payload.destinations).toEqual(['slack:D0DIRECT01:1.2']);
    expect(originOf(await withViewedChannelRoute(request('D0DIRECT01'), settings('C0NOROUTE1'), routed))).toEqual({ source: 'slack', channel: 'D0DIRECT01' });
    expect(originOf(await withViewedChannelRoute(request('D0DIRECT01'), settings(''), routed))).toEqual({ source: 'slack', channel: 'D0DIRECT01' });
    expect(originOf(await withViewedChannelRoute(request('C0API00001'), settings('C0WEB00001'), routed))).toEqual({ source: 'slack', channel: 'C0API00001' });
  });
});
