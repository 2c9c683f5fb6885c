import { parse } from 'node:querystring';
import { describe, expect, it } from 'vitest';
import { checkSlashCommand, refusedCommandText } from './command-form.js';

// Slack's documented example, as it arrives.
const EXAMPLE =
  'token=gIkuvaNzQIHg97ATvDxqgjtO&team_id=T0001&team_domain=example&enterprise_id=E0001&enterprise_name=Globular%20Construct%20Inc' +
  '&channel_id=C2147483705&channel_name=test&user_id=U2147483697&user_name=Steve&command=%2Fweather&text=94070' +
  '&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2F1234%2F5678&trigger_id=13345224609.738474920.8088930838d88f008e0&api_app_id=A123456';
const form = (change: Record<string, string | string[] | undefined>) => {
  const fields: Record<string, unknown> = { ...parse(EXAMPLE), ...change };
  for (const [key, value] of Object.entries(change)) if (value === undefined) delete fields[key];
  return fields;
};

describe('checkSlashCommand', () => {
  it('accepts Slack’s example and returns the fields we read', () => {
    expect(checkSlashCommand(parse(EXAMPLE))).toEqual({
      ok: true,
      fields: {
        command: '/weather',
        text: '94070',
        user_id: 'U2147483697',
        channel_id: 'C2147483705',
        team_id: 'T0001',
        trigger_id: '13345224609.738474920.8088930838d88f008e0',
        response_url: 'https://hooks.slack.com/commands/1234/5678',
      },
    });
  });

  it.each<[string, Record<string, string | string[] | undefined>]>([
    ['an empty text', { text: '' }],
    ['a private channel', { channel_id: 'G8PSS9T3V' }],
    ['a direct message', { channel_id: 'D0DIRECT01' }],
    ['an enterprise user', { user_id: 'W012A3CDE' }],
  ])('accepts %s', (_what, change) => {
    expect(checkSlashCommand(form(change)).ok).toBe(true);
  });

  it.each<[string, Record<string, string | string[] | undefined>, string, string]>([
    ['text sent twice', { text: ['a', 'b'] }, 'text', 'was sent more than once'],
    ['no text', { text: undefined }, 'text', 'is missing'],
    ['no trigger_id', { trigger_id: undefined }, 'trigger_id', 'is missing'],
    ['a trigger_id with a colon', { trigger_id: '1.2:3' }, 'trigger_id', 'is not a Slack trigger id'],
    ['an empty trigger_id', { trigger_id: '' }, 'trigger_id', 'is not a Slack trigger id'],
    ['no user_id', { user_id: undefined }, 'user_id', 'is missing'],
    ['a lower-case user_id', { user_id: 'u2147483697' }, 'user_id', 'is not a Slack user id'],
    ['a channel id as user_id', { user_id: 'C2147483705' }, 'user_id', 'is not a Slack user id'],
    ['a channel_id with extra parts', { channel_id: 'C0WEB0001:evil:1' }, 'channel_id', 'is not a Slack channel id'],
    ['a channel_id with a space', { channel_id: 'C0WEB 0001' }, 'channel_id', 'is not a Slack channel id'],
    ['an overlong channel_id', { channel_id: `C${'A'.repeat(41)}` }, 'channel_id', 'is not a Slack channel id'],
    ['channel_id sent twice', { channel_id: ['C1', 'C2'] }, 'channel_id', 'was sent more than once'],
    ['no team_id', { team_id: undefined }, 'team_id', 'is missing'],
    ['a user id as team_id', { team_id: 'U2147483697' }, 'team_id', 'is not a Slack team id'],
    ['a command without a slash', { command: 'agent' }, 'command', 'is not a slash command'],
    ['a response_url over http', { response_url: 'http://hooks.slack.com/commands/1' }, 'response_url', 'is not an https URL'],
    ['a javascript: response_url', { response_url: 'javascript:alert(1)' }, 'response_url', 'is not an https URL'],
    ['a field we do not read sent twice', { user_name: ['a', 'b'] }, 'user_name', 'was sent more than once'],
    ['an odd field name sent twice', { 'x`<!channel>': ['a', 'b'] }, 'other field', 'was sent more than once'],
  ])('refuses %s', (_what, change, field, problem) => {
    expect(checkSlashCommand(form(change))).toEqual({ ok: false, field, problem });
  });

  it('a value that is not text (Socket Mode sends JSON) is refused', () => {
    expect(checkSlashCommand({ ...parse(EXAMPLE), user_id: { id: 'U1' } })).toEqual({ ok: false, field: 'user_id', problem: 'is not text' });
  });

  it('the answer names the field and the problem, never the value', () => {
    const text = refusedCommandText({ ok: false, field: 'channel_id', problem: 'is not a Slack channel id' });
    expect(text).toContain('`channel_id` is not a Slack channel id');
    expect(text).toContain('Nothing was started');
  });
});
