import { describe, expect, it } from 'vitest';
import { TEAMS_BOT, TEAMS_IDS, TEAMS_PEOPLE, cardAction, channelMention, installUpdate, personalMessage } from '../../test/fixtures/teams/index.js';
import { acceptedServiceUrl, parseActivity } from './parse-activity.js';

const SERVICE_URL = TEAMS_IDS.serviceUrl;
const EXTRA = ['https://a.example/x', 'http://127.0.0.1:4000'];

/** The body as the connector sends it, read with a token whose claims are `claims`. */
const parse = (activity: unknown, claims: Record<string, unknown> = { serviceurl: SERVICE_URL }, extra: readonly string[] = []) =>
  parseActivity(typeof activity === 'string' ? activity : JSON.stringify(activity), { claims }, extra);

describe('acceptedServiceUrl', () => {
  it.each([
    ['the public cloud, a region', 'https://smba.trafficmanager.net/amer/'],
    ['the public cloud, global', 'https://smba.trafficmanager.net/teams/'],
    ['the public cloud without a path', 'https://smba.trafficmanager.net'],
    ['the public cloud, host in capitals', 'https://SMBA.trafficmanager.net/emea/'],
    ['GCC', 'https://smba.infra.gcc.teams.microsoft.com/gcc/'],
    ['GCC High', 'https://smba.infra.gov.teams.microsoft.us/gcch/'],
    ['DoD', 'https://smba.infra.dod.teams.microsoft.us/dod/'],
  ])('accepts Microsoft’s host over https: %s', (_what, url) => {
    expect(acceptedServiceUrl(url, [])).toBe(true);
  });

  it.each([
    ['plain http to Microsoft’s host', 'http://smba.trafficmanager.net/amer/'],
    ['a look-alike host', 'https://smba.trafficmanager.net.evil.example/amer/'],
    ['a subdomain of Microsoft’s host', 'https://evil.smba.trafficmanager.net/amer/'],
    ['Microsoft’s host with a trailing dot', 'https://smba.trafficmanager.net./amer/'],
    ['Microsoft’s host as the user of another', 'https://smba.trafficmanager.net@evil.example/amer/'],
    ['a user name before Microsoft’s host', 'https://evil@smba.trafficmanager.net/amer/'],
    ['a password before Microsoft’s host', 'https://:secret@smba.trafficmanager.net/amer/'],
    ['a query', 'https://smba.trafficmanager.net/amer/?redirect=https://evil.example/'],
    ['a fragment', 'https://smba.trafficmanager.net/amer/#v3'],
    ['another scheme', 'ftp://smba.trafficmanager.net/amer/'],
    ['not a URL', 'smba.trafficmanager.net/amer/'],
    ['empty', ''],
    ['another host', 'https://smba.evil.example.com/amer/'],
  ])('refuses %s', (_what, url) => {
    expect(acceptedServiceUrl(url, [])).toBe(false);
  });

  it.each<[string, string, boolean]>([
    ['the entry itself', 'https://a.example/x', true],
    ['the entry with a trailing slash', 'https://a.example/x/', true],
    ['a path under the entry', 'https://a.example/x/amer/', true],
    ['a loopback entry with a port, and a path under it', 'http://127.0.0.1:4000/amer/', true],
    ['a longer segment that starts with the entry’s', 'https://a.example/xy', false],
    ['a longer segment, with a slash', 'https://a.example/xy/', false],
    ['the entry’s host without its path', 'https://a.example/', false],
    ['another port on the loopback entry’s host', 'http://127.0.0.1:40001/amer/', false],
    ['the entry as the user of another host', 'http://127.0.0.1:4000@evil.example/amer/', false],
    ['a query after the entry', 'https://a.example/x?to=evil', false],
    ['a query under the entry', 'https://a.example/x/?to=evil', false],
    ['a fragment under the entry', 'https://a.example/x/#v3', false],
    ['a user name before the entry’s host', 'https://evil@a.example/x/', false],
    ['dot segments climbing out of the entry’s path', 'https://a.example/x/../y/', false],
    ['encoded dot segments climbing out of the entry’s path', 'https://a.example/x/%2e%2e/y/', false],
    ['the entry over http', 'http://a.example/x/', false],
  ])('with TEAMS_SERVICE_URLS, %s (%s) → %s', (_what, url, accepted) => {
    expect(acceptedServiceUrl(url, EXTRA)).toBe(accepted);
  });

  it('an entry does not widen Microsoft’s hosts: plain http to them is still refused', () => {
    expect(acceptedServiceUrl('http://smba.trafficmanager.net/amer/', EXTRA)).toBe(false);
  });
});

describe('parseActivity: bodies that are no activity (400)', () => {
  it.each([
    ['not JSON', '{"type":"message"', /not JSON/],
    ['empty', '', /not JSON/],
    ['a JSON array', JSON.stringify([channelMention()]), /not an activity/],
    ['null', 'null', /not an activity/],
    ['a number', '42', /not an activity/],
    ['a string', '"message"', /not an activity/],
    ['no type', JSON.stringify({ ...channelMention(), type: undefined }), /^type: is missing/],
    ['a type that is no text', JSON.stringify({ ...channelMention(), type: ['message'] }), /^type: is missing/],
  ])('%s', (_what, body, reason) => {
    const parsed = parse(body);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason).toMatch(reason);
  });

  it.each([
    ['a message without from', { from: undefined }, /^from: /],
    ['a message whose from has no id', { from: { name: 'Ada' } }, /^from\.id: /],
    ['a message without an id', { id: undefined }, /^id: /],
    ['a message whose id is an object', { id: { $gt: '' } }, /^id: /],
    ['a message without a conversation', { conversation: undefined }, /^conversation: /],
    ['a message whose text is a number', { text: 12345 }, /^text: /],
    ['a message whose entities are an object', { entities: { type: 'mention' } }, /^entities: /],
    ['a message with an id over 200 characters', { id: '1'.repeat(201) }, /^id: /],
  ])('%s names the field', (_what, overrides, reason) => {
    const parsed = parse({ ...channelMention(), ...overrides });
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason).toMatch(reason);
  });
});

describe('parseActivity: the token must vouch for the body', () => {
  it.each([
    ['the claim with the activity’s trailing slash', SERVICE_URL, SERVICE_URL],
    ['the claim without the trailing slash the activity has', SERVICE_URL.replace(/\/$/, ''), SERVICE_URL],
    ['the claim with a trailing slash the activity lacks', SERVICE_URL, SERVICE_URL.replace(/\/$/, '')],
  ])('accepts %s', (_what, claim, serviceUrl) => {
    expect(parse(channelMention({ serviceUrl }), { serviceurl: claim })).toMatchObject({ ok: true, value: { type: 'message', serviceUrl } });
  });

  it.each<[string, Record<string, unknown>, unknown]>([
    ['no serviceurl claim', {}, SERVICE_URL],
    ['a claim named in another case', { serviceUrl: SERVICE_URL }, SERVICE_URL],
    ['a claim that is no text', { serviceurl: [SERVICE_URL] }, SERVICE_URL],
    ['a claim of another region', { serviceurl: 'https://smba.trafficmanager.net/emea/' }, SERVICE_URL],
    ['a claim that only starts the same', { serviceurl: 'https://smba.trafficmanager.net/am' }, SERVICE_URL],
    ['an activity without serviceUrl', { serviceurl: SERVICE_URL }, undefined],
    ['an activity whose serviceUrl is no text', { serviceurl: SERVICE_URL }, { href: SERVICE_URL }],
  ])('refuses %s as unauthorised', (_what, claims, serviceUrl) => {
    expect(parse({ ...channelMention(), serviceUrl }, claims)).toEqual({ ok: true, value: { unauthorised: expect.stringContaining('serviceurl claim') } });
  });

  it('refuses a body when the request carries no claims at all', () => {
    expect(parseActivity(JSON.stringify(channelMention()), { claims: undefined }, [])).toEqual({
      ok: true,
      value: { unauthorised: expect.stringContaining('serviceurl claim') },
    });
  });

  it('refuses a service URL the bot does not answer even when the token agrees with it, whatever the type', () => {
    const elsewhere = 'https://smba.evil.example.com/amer/';
    for (const activity of [channelMention({ serviceUrl: elsewhere }), installUpdate({ serviceUrl: elsewhere })]) {
      expect(parse(activity, { serviceurl: elsewhere })).toEqual({ ok: true, value: { unauthorised: expect.stringContaining('not a Bot Connector service') } });
    }
  });

  it('accepts a service URL TEAMS_SERVICE_URLS lists', () => {
    const serviceUrl = 'http://127.0.0.1:4000/amer/';
    expect(parse(channelMention({ serviceUrl }), { serviceurl: serviceUrl }, EXTRA)).toMatchObject({ ok: true, value: { serviceUrl } });
    expect(parse(channelMention({ serviceUrl }), { serviceurl: serviceUrl }, [])).toEqual({ ok: true, value: { unauthorised: expect.any(String) } });
  });
});

describe('parseActivity: what the bot acts on', () => {
  it('a message: its fields, and the ids its mention entities name', () => {
    const mention = channelMention({ text: 'fix the build' });
    const other = { type: 'mention', mentioned: { id: TEAMS_PEOPLE.grace.id, name: 'Grace Hopper' }, text: '<at>Grace Hopper</at>' };
    const parsed = parse({ ...mention, entities: [...(mention.entities ?? []), other, { type: 'mention' }, { type: 'clientInfo', locale: 'en-US' }] });
    expect(parsed).toMatchObject({
      ok: true,
      value: {
        type: 'message',
        id: mention.id,
        text: `<at>${TEAMS_BOT.name}</at> fix the build`,
        from: TEAMS_PEOPLE.ada,
        conversation: { id: mention.conversation?.id, conversationType: 'channel', tenantId: TEAMS_IDS.tenant },
        channelData: { channel: { id: TEAMS_IDS.channel }, tenant: { id: TEAMS_IDS.tenant } },
        mentionedIds: [TEAMS_BOT.id, TEAMS_PEOPLE.grace.id],
      },
    });
  });

  it('a message without text or entities mentions nobody', () => {
    expect(parse({ ...personalMessage(), text: undefined, entities: undefined })).toMatchObject({ ok: true, value: { mentionedIds: [] } });
  });

  it('a card press: its action’s verb and data', () => {
    const press = cardAction({ cardActivityId: '1750000000001', data: { runId: 'run_1' } });
    expect(parse(press)).toMatchObject({
      ok: true,
      value: { type: 'invoke', name: 'adaptiveCard/action', replyToId: '1750000000001', value: { action: { verb: 'cancel_run', data: { runId: 'run_1' } } } },
    });
  });

  it.each([
    ['without value', { value: undefined }],
    ['without an action', { value: { trigger: 'manual' } }],
    ['whose action has no type', { value: { action: { verb: 'cancel_run' } } }],
    ['whose data is a list', { value: { action: { type: 'Action.Execute', verb: 'cancel_run', data: ['run_1'] } } }],
  ])('a card press %s is ignored as one without an action', (_what, overrides) => {
    expect(parse({ ...cardAction({ cardActivityId: '1' }), ...overrides })).toEqual({
      ok: true,
      ignored: 'a card press without an action',
      log: { type: 'invoke' },
    });
  });

  it.each([
    ['the bot added to a team', installUpdate({ serviceUrl: SERVICE_URL })],
    ['the bot added to a 1:1 chat', installUpdate({ scope: 'personal', serviceUrl: SERVICE_URL })],
    ['an installationUpdate', { ...installUpdate({ serviceUrl: SERVICE_URL }), type: 'installationUpdate' }],
  ])('an update (%s): its conversation and service URL, which the tenant’s posts may use', (_what, activity) => {
    expect(parse(activity)).toEqual({
      ok: true,
      value: {
        type: activity.type,
        serviceUrl: SERVICE_URL,
        conversation: { id: activity.conversation?.id, conversationType: activity.conversation?.conversationType, tenantId: TEAMS_IDS.tenant },
        channelData: { tenant: { id: TEAMS_IDS.tenant }, ...(activity.channelData?.['team'] !== undefined && { team: { id: TEAMS_IDS.team } }) },
      },
    });
  });

  it('an update without its conversation is ignored', () => {
    expect(parse({ ...installUpdate({ serviceUrl: SERVICE_URL }), conversation: undefined })).toEqual({
      ok: true,
      ignored: 'an update without its conversation',
      log: { type: 'conversationUpdate' },
    });
  });

  it.each([
    ['a messageReaction', { ...channelMention(), type: 'messageReaction' }, 'messageReaction'],
    ['an invoke of another name', { ...cardAction({ cardActivityId: '1' }), name: 'composeExtension/query' }, 'invoke'],
    ['a type of 60 characters, logged cut to 40', { ...channelMention(), type: 't'.repeat(60) }, 't'.repeat(40)],
  ])('%s is ignored, its type logged', (_what, activity, logged) => {
    expect(parse(activity)).toEqual({ ok: true, ignored: 'an activity type the bot does not act on', log: { type: logged } });
  });
});
