import { describe, expect, it } from 'vitest';
import { inspectSlackRequest } from './inspect-request.js';

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const form = (payload: unknown) => `payload=${encodeURIComponent(JSON.stringify(payload))}`;
const COMMAND =
  'team_id=T0001&channel_id=C2147483705&user_id=U2147483697&command=%2Fagent&text=help' +
  '&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2F1234%2F5678&trigger_id=13345224609.738474920.8088930838d88f008e0';
const mention = (event: Record<string, unknown>) => JSON.stringify({ type: 'event_callback', event_id: 'Ev1', event: { type: 'app_mention', ...event } });
const reaction = (event: Record<string, unknown>) => JSON.stringify({ type: 'event_callback', event_id: 'Ev2', event: { type: 'reaction_added', ...event } });

describe('inspectSlackRequest', () => {
  it.each<[string, string | undefined, string, string]>([
    ['a mention', JSON_TYPE, mention({ user: 'U1', text: 'hi', channel: 'C1', ts: '1.1' }), 'forward'],
    ['json with charset', `${JSON_TYPE}; charset=utf-8`, mention({ user: 'U1' }), 'forward'],
    ['url verification', JSON_TYPE, JSON.stringify({ type: 'url_verification', challenge: 'abc' }), 'forward'],
    ['url verification without challenge', JSON_TYPE, JSON.stringify({ type: 'url_verification' }), 'reject'],
    ['an envelope we do not handle', JSON_TYPE, JSON.stringify({ type: 'app_rate_limited', minute_rate_limited: 1 }), 'ignore'],
    ['not JSON', JSON_TYPE, '{nope', 'reject'],
    ['null', JSON_TYPE, 'null', 'reject'],
    ['an array', JSON_TYPE, '[]', 'reject'],
    ['event_callback without event', JSON_TYPE, JSON.stringify({ type: 'event_callback', event_id: 'Ev1' }), 'reject'],
    ['event_callback without event_id', JSON_TYPE, JSON.stringify({ type: 'event_callback', event: { type: 'message' } }), 'reject'],
    ['user null', JSON_TYPE, mention({ user: null }), 'reject'],
    ['text as a number', JSON_TYPE, mention({ text: 42 }), 'reject'],
    ['a reaction', JSON_TYPE, reaction({ user: 'U1', reaction: 'robot_face', item: { type: 'message', channel: 'C1', ts: '1.1' } }), 'forward'],
    ['a reaction with item null', JSON_TYPE, reaction({ user: 'U1', reaction: 'robot_face', item: null }), 'reject'],
    ['a reaction whose item channel is a number', JSON_TYPE, reaction({ user: 'U1', item: { type: 'message', channel: 7, ts: '1.1' } }), 'reject'],
    ['a reaction name that is a list', JSON_TYPE, reaction({ user: 'U1', reaction: ['ok'], item: { type: 'message', channel: 'C1', ts: '1.1' } }), 'reject'],
    // Ids no message can reach are acknowledged and dropped (200), not started: every message of such a run would fail to reach its place.
    ['a mention in a channel with extra parts', JSON_TYPE, mention({ user: 'U1', text: 'hi', channel: 'C1:evil:1', ts: '1.1' }), 'ignore'],
    ['a mention in a channel named, not an id', JSON_TYPE, mention({ user: 'U1', text: 'hi', channel: 'general', ts: '1.1' }), 'ignore'],
    ['a mention in a lowercase channel id', JSON_TYPE, mention({ user: 'U1', text: 'hi', channel: 'c0abc', ts: '1.1' }), 'ignore'],
    ['a mention in an empty channel', JSON_TYPE, mention({ user: 'U1', text: 'hi', channel: '', ts: '1.1' }), 'ignore'],
    ['a mention whose ts is not a ts', JSON_TYPE, mention({ user: 'U1', text: 'hi', channel: 'C1', ts: 'now' }), 'ignore'],
    ['a mention whose thread_ts has extra parts', JSON_TYPE, mention({ user: 'U1', text: 'hi', channel: 'C1', ts: '1.1', thread_ts: '1.1:2' }), 'ignore'],
    [
      'a reaction in a channel that is not an id',
      JSON_TYPE,
      reaction({ user: 'U1', reaction: 'ok', item: { type: 'message', channel: 'C 1', ts: '1.1' } }),
      'ignore',
    ],
    [
      'a reaction on a message whose ts is not a ts',
      JSON_TYPE,
      reaction({ user: 'U1', reaction: 'ok', item: { type: 'message', channel: 'C1', ts: '1' } }),
      'ignore',
    ],
    ['a mention in a private channel', JSON_TYPE, mention({ user: 'U1', text: 'hi', channel: 'G024BE91L', ts: '1355517523.000005' }), 'forward'],
    ['a direct message', JSON_TYPE, mention({ user: 'U1', text: 'hi', channel: 'D0DIRECT01', ts: '1355517523.000005' }), 'forward'],
    [
      'a composer link (channel COMPOSER, message_ts not a ts)',
      JSON_TYPE,
      JSON.stringify({
        type: 'event_callback',
        event_id: 'Ev3',
        event: { type: 'link_shared', channel: 'COMPOSER', user: 'U1', message_ts: 'U1-909b5454-75f8', links: [] },
      }),
      'forward',
    ],
    ['a slash command', FORM, COMMAND, 'forward'],
    ['a slash command without a user_id', FORM, COMMAND.replace('&user_id=U2147483697', ''), 'refuse'],
    ['a slash command with its text twice', FORM, `${COMMAND}&text=again`, 'refuse'],
    ['a slash command sent twice', FORM, `${COMMAND}&command=%2Fagent`, 'refuse'],
    ['a button click', FORM, form({ type: 'block_actions', user: { id: 'U1' }, actions: [{ action_id: 'cancel_run' }] }), 'forward'],
    ['block_actions without actions', FORM, form({ type: 'block_actions', user: { id: 'U1' } }), 'reject'],
    ['an interaction type we do not handle', FORM, form({ type: 'block_suggestion' }), 'ignore'],
    ['a payload that is not JSON', FORM, 'payload=%7Bnope', 'reject'],
    ['a form that is nothing', FORM, 'a=b', 'reject'],
    ['another content type', 'text/plain', 'hello', 'reject'],
    ['no content type', undefined, '{}', 'reject'],
  ])('%s → %s', (_what, contentType, body, action) => {
    expect(inspectSlackRequest(contentType, body).action).toBe(action);
  });
});
