import { describe, expect, it } from 'vitest';
import {
  TEAMS_BOT,
  TEAMS_IDS,
  TEAMS_PEOPLE,
  channelMention,
  groupChatMention,
  personalMessage,
  threadReply,
  type TeamsActivity,
} from '../../test/fixtures/teams/index.js';
import type { Followups } from '../config-kit/conversation-keys.js';
import type { Route } from '../core/intake/routing.js';
import { activityKey, messageTrigger, requesterOf, whereOf } from './normalise.js';
import { parseActivity, type MessageActivity } from './parse-activity.js';
import { teamsSurface } from './surface.js';

const ROOT = '1750000000000';
const THREAD = `${TEAMS_IDS.channel};messageid=${ROOT}`;

/** A fixture as the edge reads it. */
function read(activity: TeamsActivity): MessageActivity {
  const parsed = parseActivity(JSON.stringify(activity), { claims: { serviceurl: activity.serviceUrl } }, []);
  if (!parsed.ok || 'ignored' in parsed || 'unauthorised' in parsed.value || parsed.value.type !== 'message') throw new Error('not a message');
  return parsed.value;
}

const settings = (followups: Followups = 'mentions') => ({
  botId: TEAMS_BOT.id,
  botName: TEAMS_BOT.name,
  tenantId: TEAMS_IDS.tenant,
  followups,
  key: 'teams:k',
});
const kindOf = (result: ReturnType<typeof messageTrigger>) => ('trigger' in result ? result.trigger.kind : 'ignored');

describe('messageTrigger', () => {
  it.each<[string, TeamsActivity, Followups, boolean, string]>([
    ['a channel mention starts a run', channelMention({ text: 'fix the build' }), 'mentions', false, 'start'],
    ['a mention in a run’s channel thread is a follow-up', threadReply({ rootId: ROOT, text: 'use pnpm' }), 'mentions', true, 'followup'],
    ['a mention in a channel thread without a run starts one', threadReply({ rootId: ROOT, text: 'use pnpm' }), 'mentions', false, 'start'],
    ['a group chat mention starts a run', groupChatMention({ text: 'fix the build' }), 'mentions', false, 'start'],
    ['a group chat mention while its run lives is a follow-up', groupChatMention({ text: 'use pnpm' }), 'mentions', true, 'followup'],
    ['a 1:1 message needs no mention to start', personalMessage({ text: 'fix the build' }), 'mentions', false, 'start'],
    ['a 1:1 message while its run lives is a follow-up', personalMessage({ text: 'use pnpm' }), 'mentions', true, 'followup'],
    ['stop as the first word stops', channelMention({ text: 'stop' }), 'mentions', true, 'cancel'],
    ['cancel as the first word stops', threadReply({ rootId: ROOT, text: 'cancel it please' }), 'mentions', true, 'cancel'],
    ['Stop. in capitals, with a full stop, stops', personalMessage({ text: 'Stop.' }), 'mentions', true, 'cancel'],
    ['stop stops even without a run (the intake says there is none)', personalMessage({ text: 'stop' }), 'mentions', false, 'cancel'],
    ['stop later in the text is a request', personalMessage({ text: 'please stop the flaky test' }), 'mentions', false, 'start'],
    ['new starts another run while one lives', threadReply({ rootId: ROOT, text: 'new try pnpm' }), 'mentions', true, 'start'],
    ['an empty mention is nothing', channelMention({ text: '' }), 'mentions', false, 'ignored'],
    ['a mention of only spaces and tags is nothing', channelMention({ text: ' <p> </p> &nbsp; ' }), 'mentions', true, 'ignored'],
    ['new with nothing after it is nothing', channelMention({ text: 'new' }), 'mentions', true, 'ignored'],
    ['a reply without a mention, followups: mentions', threadReply({ rootId: ROOT, mention: false, text: 'use pnpm' }), 'mentions', true, 'ignored'],
    ['a reply without a mention, followups: all, a run lives', threadReply({ rootId: ROOT, mention: false, text: 'use pnpm' }), 'all', true, 'followup'],
    ['a reply without a mention, followups: all, no run', threadReply({ rootId: ROOT, mention: false, text: 'use pnpm' }), 'all', false, 'ignored'],
    ['an empty reply without a mention, followups: all', threadReply({ rootId: ROOT, mention: false, text: '<p></p>' }), 'all', true, 'ignored'],
    [
      'stop without a mention, followups: all, is a follow-up, not a stop',
      threadReply({ rootId: ROOT, mention: false, text: 'stop' }),
      'all',
      true,
      'followup',
    ],
  ])('%s', (_what, activity, followups, active, kind) => {
    expect(kindOf(messageTrigger(read(activity), settings(followups), active))).toBe(kind);
  });

  it('a channel mention: its prompt without the mention, its own thread as anchor and destination, the channel to route by', () => {
    const mention = channelMention({ text: 'fix the <b>flaky</b> login test &amp; the logout one' });
    const place = `teams:${TEAMS_IDS.channel};messageid=${mention.id}`;
    expect(messageTrigger(read(mention), settings(), false)).toEqual({
      trigger: {
        kind: 'start',
        key: 'teams:k',
        source: 'teams',
        anchor: place,
        payload: {
          prompt: 'fix the <b>flaky</b> login test & the logout one',
          title: 'fix the <b>flaky</b> login test & the logout one',
          origin: { source: 'teams', channel: TEAMS_IDS.channel },
          destinations: [place],
          requester: { platform: 'teams', id: TEAMS_PEOPLE.ada.aadObjectId, name: 'Ada Lovelace', orgs: [TEAMS_IDS.tenant] },
          reference: { activityId: mention.id, conversationId: mention.conversation?.id, serviceUrl: TEAMS_IDS.serviceUrl, userId: TEAMS_PEOPLE.ada.id },
          followupIfLinked: true,
        },
      },
    });
  });

  it('a chat’s start routes without a channel and is never a follow-up of a linked run', () => {
    for (const activity of [groupChatMention(), personalMessage()]) {
      const result = messageTrigger(read(activity), settings(), false);
      expect(result).toMatchObject({ trigger: { kind: 'start', payload: { origin: { source: 'teams' }, followupIfLinked: false } } });
      expect('trigger' in result && result.trigger.payload).not.toHaveProperty('origin.channel');
    }
  });

  it('new starts a run of the words after it, not a follow-up of the linked one', () => {
    expect(messageTrigger(read(threadReply({ rootId: ROOT, text: 'new: try pnpm' })), settings(), true)).toMatchObject({
      trigger: { kind: 'start', anchor: `teams:${THREAD}`, payload: { prompt: 'try pnpm', followupIfLinked: false } },
    });
  });

  it('a follow-up carries the words, the requester and where to answer; a stop carries no words', () => {
    const reply = threadReply({ rootId: ROOT, text: 'use <at>Grace Hopper</at>’s fix' });
    expect(messageTrigger(read(reply), settings(), true)).toEqual({
      trigger: {
        kind: 'followup',
        key: 'teams:k',
        source: 'teams',
        anchor: `teams:${THREAD}`,
        payload: {
          message: 'use @Grace Hopper’s fix',
          requester: expect.objectContaining({ id: TEAMS_PEOPLE.ada.aadObjectId }),
          reference: expect.objectContaining({ activityId: reply.id, conversationId: THREAD }),
        },
      },
    });
    const stop = messageTrigger(read(threadReply({ rootId: ROOT, text: 'stop' })), settings(), true);
    expect(stop).toMatchObject({ trigger: { kind: 'cancel', anchor: `teams:${THREAD}` } });
    expect('trigger' in stop && Object.keys(stop.trigger.payload).sort()).toEqual(['reference', 'requester']);
  });

  it('a mention of someone else only is not addressed to the bot', () => {
    const other = { type: 'mention', mentioned: { id: TEAMS_PEOPLE.grace.id, name: 'Grace Hopper' }, text: '<at>Grace Hopper</at>' };
    const activity = channelMention({ text: 'x', overrides: { text: '<at>Grace Hopper</at> fix the build', entities: [other] } });
    expect(messageTrigger(read(activity), settings('all'), false)).toEqual({ ignored: 'a message not addressed to the bot' });
  });

  it.each([
    ['without aadObjectId', { id: TEAMS_PEOPLE.ada.id, name: 'Ada Lovelace' }],
    ['with an empty aadObjectId', { ...TEAMS_PEOPLE.ada, aadObjectId: '' }],
  ])('a person %s starts, steers and stops nothing', (_what, from) => {
    for (const text of ['fix the build', 'stop']) {
      expect(messageTrigger(read(channelMention({ text, overrides: { from } })), settings('all'), true)).toEqual({
        ignored: 'a message without an Entra object id (a guest of another kind, or an app)',
      });
    }
  });
});

describe('requesterOf', () => {
  it('names the person by their Entra object id in lower case, in our tenant, their name cut to 200 characters', () => {
    const from = { id: TEAMS_PEOPLE.ada.id, aadObjectId: TEAMS_PEOPLE.ada.aadObjectId.toUpperCase(), name: 'A'.repeat(300) };
    expect(requesterOf({ from }, TEAMS_IDS.tenant)).toEqual({
      platform: 'teams',
      id: TEAMS_PEOPLE.ada.aadObjectId,
      name: 'A'.repeat(200),
      orgs: [TEAMS_IDS.tenant],
    });
    expect(requesterOf({ from: { id: TEAMS_PEOPLE.ada.id, aadObjectId: TEAMS_PEOPLE.ada.aadObjectId } }, TEAMS_IDS.tenant)).not.toHaveProperty('name');
  });
});

describe('whereOf', () => {
  const where = (conversation: MessageActivity['conversation'], channelData?: MessageActivity['channelData']) =>
    whereOf({ conversation, ...(channelData && { channelData }) });

  it.each([
    ['a channel thread', { id: THREAD, conversationType: 'channel' }, { channel: { id: TEAMS_IDS.channel } }, 'channel', TEAMS_IDS.channel],
    ['a channel thread without channelData: the channel from its id', { id: THREAD, conversationType: 'channel' }, undefined, 'channel', TEAMS_IDS.channel],
    ['a group chat', { id: TEAMS_IDS.groupChat, conversationType: 'groupChat' }, { tenant: { id: TEAMS_IDS.tenant } }, 'groupChat', undefined],
    ['a 1:1 chat', { id: TEAMS_IDS.personalChat, conversationType: 'personal' }, undefined, 'personal', undefined],
    ['a chat of no type whose id is a 1:1 chat’s', { id: TEAMS_IDS.personalChat }, undefined, 'personal', undefined],
    ['a chat of no type otherwise: a group chat', { id: TEAMS_IDS.groupChat }, undefined, 'groupChat', undefined],
    ['a conversation of a type Teams does not name', { id: TEAMS_IDS.groupChat, conversationType: 'meeting' }, undefined, 'groupChat', undefined],
  ])('%s', (_what, conversation, channelData, kind, channel) => {
    expect(where(conversation, channelData)).toEqual({ place: `teams:${conversation.id}`, channel, kind });
  });
});

describe('the route of a start', () => {
  const routes: Record<string, Route> = { [TEAMS_IDS.channel]: { title: 'web' }, '*': { title: 'any' } };
  const routeOf = (activity: TeamsActivity) => {
    const result = messageTrigger(read(activity), settings(), false);
    if (!('trigger' in result) || result.trigger.kind !== 'start') throw new Error('not a start');
    return teamsSurface(routes).route(result.trigger.payload.origin);
  };

  it('a thread’s start routes by its channel, not by the thread; another channel and a chat take "*"', () => {
    expect(routeOf(threadReply({ rootId: ROOT }))).toBe(routes[TEAMS_IDS.channel]);
    expect(routeOf(channelMention({ channel: TEAMS_IDS.otherChannel }))).toBe(routes['*']);
    expect(routeOf(groupChatMention())).toBe(routes['*']);
    expect(routeOf(personalMessage())).toBe(routes['*']);
  });
});

describe('activityKey', () => {
  it('is the conversation’s and the activity’s, the same on every redelivery', () => {
    expect(activityKey(TEAMS_IDS.channel, '1750000000001')).toBe(`teams:activity:${TEAMS_IDS.channel}:1750000000001`);
  });
});
