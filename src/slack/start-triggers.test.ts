import { describe, expect, it } from 'vitest';
import { messageKey } from './normalise.js';
import { afterKeyword, keywordTrigger, reactionTrigger, readReaction, triggerOf, type ChannelTrigger, type StartTriggers } from './start-triggers.js';

const BOT = 'UBOT';
const C = 'C0123ABCD';
const TRIGGER: ChannelTrigger = { keywords: ['agent:', 'bot', 'a&b'], emoji: 'robot_face' };

describe('afterKeyword', () => {
  it.each([
    ['agent: fix the login', ' fix the login'],
    ['   AGENT: fix it', ' fix it'],
    ['Agent:fix it', 'fix it'],
    ['bot, fix it', ', fix it'],
    ['bot', ''],
    ['a&amp;b go', ' go'],
  ])('%j opens with a keyword, leaving %j', (text, rest) => {
    expect(afterKeyword(text, TRIGGER.keywords)).toBe(rest);
  });

  it.each([['bots are slow'], ['robot: go'], ['please agent: fix it'], ['a&b go'], ['']])('%j opens with none', (text) => {
    expect(afterKeyword(text, TRIGGER.keywords)).toBeUndefined();
  });
});

describe('triggerOf', () => {
  const startTriggers: StartTriggers = { routed: new Set([C, 'C0NOTRIG', '*']), triggers: { [C]: TRIGGER, '*': { keywords: ['any:'] } } };
  it.each([
    [C, TRIGGER],
    ['C0NOTRIG', undefined],
    ['C0ELSEWHERE', { keywords: ['any:'] }],
  ])('in %s the trigger is %j (the route routing picks)', (channel, expected) => {
    expect(triggerOf(startTriggers, channel)).toEqual(expected);
  });
});

describe('keywordTrigger', () => {
  const message = (fields: Record<string, string>) => ({
    channel: C,
    user: 'U1',
    ts: '1700000000.000100',
    text: 'agent: fix the login',
    orgs: ['T1'],
    ...fields,
  });

  it('starts a run on a top-level message without its keyword, keyed and anchored as a mention of it', () => {
    const trigger = keywordTrigger(message({}), BOT, TRIGGER);
    expect(trigger).toMatchObject({
      kind: 'start',
      key: messageKey(C, '1700000000.000100'),
      anchor: `slack:${C}:1700000000.000100`,
      payload: { prompt: 'fix the login', title: 'fix the login', requester: { id: 'U1' }, origin: { source: 'slack', channel: C } },
    });
  });

  it.each([
    ['a reply in a thread', { thread_ts: '1699999999.000100' }],
    ['a DM (already addressed to the bot)', { channel_type: 'im' }],
    ['a message that mentions the bot (its app_mention is the request)', { text: `agent: <@${BOT}> fix it` }],
    ['no keyword', { text: 'fix the login' }],
    ['a keyword and nothing else', { text: 'agent:   ' }],
  ])('starts nothing for %s', (_name, fields) => {
    expect(keywordTrigger(message(fields), BOT, TRIGGER)).toBeUndefined();
  });

  it('starts nothing where the channel has no keywords', () => {
    expect(keywordTrigger(message({}), BOT, undefined)).toBeUndefined();
    expect(keywordTrigger(message({}), BOT, { keywords: [], emoji: 'robot_face' })).toBeUndefined();
  });
});

describe('readReaction and reactionTrigger', () => {
  const event = (fields: Record<string, unknown> = {}) => ({
    type: 'reaction_added',
    user: 'U2',
    reaction: 'robot_face',
    item: { type: 'message', channel: C, ts: '1700000000.000100' },
    item_user: 'U1',
    event_ts: '1700000001.000100',
    ...fields,
  });

  it('makes the reactor the requester of a request the worker reads, keyed as a mention of the message', () => {
    const reaction = readReaction(event({ reaction: 'robot_face::skin-tone-3' }), ['T1']);
    expect(reaction).toEqual({ user: 'U2', reaction: 'robot_face', channel: C, ts: '1700000000.000100', itemUser: 'U1', orgs: ['T1'] });
    const trigger = reaction && reactionTrigger(reaction, BOT, TRIGGER);
    expect(trigger).toMatchObject({
      kind: 'start',
      key: messageKey(C, '1700000000.000100'),
      anchor: `slack:${C}:1700000000.000100`,
      payload: { requestToRead: true, followupIfLinked: true, requester: { id: 'U2', orgs: ['T1'] }, reference: { channel: C, ts: '1700000000.000100' } },
    });
  });

  it.each([
    ['a file, not a message', { item: { type: 'file', file: 'F1' } }],
    ['no user', { user: undefined }],
    ['a ts that is not one', { item: { type: 'message', channel: C, ts: '../1' } }],
    ['no item', { item: null }],
    ['a reaction that is not text', { reaction: 7 }],
  ])('reads nothing from %s', (_name, fields) => {
    expect(readReaction(event(fields), ['T1'])).toBeUndefined();
  });

  it.each([
    ['another emoji', { reaction: 'thumbsup' }, TRIGGER],
    ['a channel without an emoji', {}, { keywords: ['agent:'] }],
    ['a channel without a trigger', {}, undefined],
    ['the bot’s own reaction', { user: BOT }, TRIGGER],
    ['a reaction on the bot’s own message', { item_user: BOT }, TRIGGER],
  ])('starts nothing for %s', (_name, fields, trigger) => {
    const reaction = readReaction(event(fields), ['T1']);
    expect(reaction && reactionTrigger(reaction, BOT, trigger)).toBeUndefined();
  });
});
