import { describe, expect, it } from 'vitest';
import { addressedTrigger, messageTrigger, stripMention, type SlackMessage } from './normalise.js';

const BOT = 'UBOT';
const message = (overrides: Partial<SlackMessage>): SlackMessage => ({ channel: 'C1', user: 'U1', text: '', ts: '1700.1', orgs: ['T1'], ...overrides });

describe('stripMention', () => {
  it.each([
    ['<@UBOT> fix the build', 'fix the build'],
    ['fix <@UBOT|agent> the build', 'fix the build'],
    ['<@UBOT>', ''],
    ['<@UOTHER> fix', '<@UOTHER> fix'],
    ['  <@UBOT>\nline two  ', 'line two'],
    ['<@UBOT>\tfix \t the  build\tnow', 'fix the build now'],
    ['<@UBOT> one two\n  three', 'one two\n three'],
  ])('%j → %j', (text, expected) => {
    expect(stripMention(text, BOT)).toBe(expected);
  });
});

describe('addressedTrigger', () => {
  it('a mention at top level starts a run anchored at its own thread', () => {
    const trigger = addressedTrigger(message({ text: '<@UBOT> fix the build\nmore detail' }), BOT);
    expect(trigger).toMatchObject({
      kind: 'start',
      key: 'slack:msg:C1:1700.1',
      anchor: 'slack:C1:1700.1',
      payload: {
        prompt: 'fix the build\nmore detail',
        title: 'fix the build',
        followupIfLinked: true,
        reference: { channel: 'C1', ts: '1700.1' },
        requester: { id: 'U1', name: '<@U1>' },
      },
    });
  });

  it.each([
    ['a mention in a thread is anchored at the thread', { thread_ts: '1699.9', text: '<@UBOT> also this' }, { kind: 'start', anchor: 'slack:C1:1699.9' }],
    ['stop as the first word cancels', { thread_ts: '1699.9', text: '<@UBOT> stop' }, { kind: 'cancel', anchor: 'slack:C1:1699.9' }],
    [
      'new starts another run',
      { thread_ts: '1699.9', text: '<@UBOT> new try again' },
      { kind: 'start', payload: expect.objectContaining({ prompt: 'try again', followupIfLinked: false }) },
    ],
  ])('%s', (_what, overrides, expected) => {
    expect(addressedTrigger(message(overrides), BOT)).toMatchObject(expected);
  });

  it('the prompt and title are what was typed: markup readable, escapes decoded once (issue 16)', () => {
    const trigger = addressedTrigger(message({ text: '<@UBOT> compare a &lt; b &amp; c with <#C2|dev>' }), BOT);
    expect(trigger).toMatchObject({ payload: { prompt: 'compare a < b & c with #dev', title: 'compare a < b & c with #dev' } });
  });

  it('an empty mention does nothing', () => {
    expect(addressedTrigger(message({ text: '<@UBOT>  ' }), BOT)).toBeUndefined();
  });
});

describe('messageTrigger', () => {
  it.each<[string, Partial<SlackMessage>, 'all' | 'mentions', string | undefined]>([
    ['a DM starts a run', { channel: 'D1', channel_type: 'im', text: 'fix it' }, 'all', 'start'],
    ['a reply in a channel thread is a follow-up', { thread_ts: '1699.9', text: 'use pnpm' }, 'all', 'followup'],
    ['with followups: mentions, a plain reply is not', { thread_ts: '1699.9', text: 'use pnpm' }, 'mentions', undefined],
    ['a reply mentioning the bot comes as app_mention instead', { thread_ts: '1699.9', text: '<@UBOT> use pnpm' }, 'all', undefined],
    ['a top-level channel message is conversation', { text: 'hello all' }, 'all', undefined],
    ['a thread parent is not a reply', { thread_ts: '1700.1', text: 'parent' }, 'all', undefined],
  ])('%s', (_what, overrides, followups, kind) => {
    expect(messageTrigger(message(overrides), BOT, followups)?.kind).toBe(kind);
  });

  it('a reply reaches the run as typed (issue 16)', () => {
    expect(messageTrigger(message({ thread_ts: '1699.9', text: 'only if x &gt; 2 &amp;&amp; <@U2>' }), BOT, 'all')).toMatchObject({
      payload: { message: 'only if x > 2 && @U2' },
    });
  });
});
