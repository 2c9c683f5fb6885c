import { describe, expect, it } from 'vitest';
import {
  TEAMS_BOT,
  TEAMS_IDS,
  TEAMS_PEOPLE,
  cardAction,
  channelMention,
  groupChatMention,
  installUpdate,
  ownMessage,
  personalMessage,
  teamsEvilBodies,
  threadReply,
  type TeamsActivity,
} from '../fixtures/teams/index.js';

/* The Teams fixtures hold the shapes Microsoft documents, so a surface built against them meets real Teams. */

const SERVICE_URL = 'http://127.0.0.1:1/amer/';
const mentionsOf = (activity: TeamsActivity) => (activity.entities ?? []).filter((entity) => entity['type'] === 'mention');

describe('message activities', () => {
  it.each([
    ['a channel mention', channelMention({ serviceUrl: SERVICE_URL })],
    ['a thread reply', threadReply({ serviceUrl: SERVICE_URL, rootId: '1750000000000' })],
    ['a group-chat mention', groupChatMention({ serviceUrl: SERVICE_URL })],
    ['a 1:1 message', personalMessage({ serviceUrl: SERVICE_URL })],
  ])('%s comes from msteams to our bot, from a person with an Entra object id, in our tenant, through the given service URL', (_what, activity) => {
    expect(activity).toMatchObject({
      type: 'message',
      channelId: 'msteams',
      serviceUrl: SERVICE_URL,
      recipient: { id: `28:${TEAMS_IDS.clientId}`, name: TEAMS_IDS.botName },
      from: TEAMS_PEOPLE.ada,
      conversation: { tenantId: TEAMS_IDS.tenant },
      id: expect.stringMatching(/^\d{13}$/),
    });
    expect(new Date(String(activity['timestamp'])).getTime()).toBe(Number(activity.id));
  });

  it('a channel mention starts its own thread: its conversation id is the channel’s with ;messageid= its own id, and it carries team and channel', () => {
    const activity = channelMention({ text: 'fix it' });
    expect(activity.conversation).toEqual({
      id: `${TEAMS_IDS.channel};messageid=${activity.id}`,
      isGroup: true,
      conversationType: 'channel',
      tenantId: TEAMS_IDS.tenant,
    });
    expect(activity.channelData).toEqual({
      teamsChannelId: TEAMS_IDS.channel,
      teamsTeamId: TEAMS_IDS.team,
      channel: { id: TEAMS_IDS.channel },
      team: { id: TEAMS_IDS.team },
      tenant: { id: TEAMS_IDS.tenant },
    });
    expect(activity.text).toBe(`<at>${TEAMS_BOT.name}</at> fix it`);
    expect(mentionsOf(activity)).toEqual([{ type: 'mention', mentioned: TEAMS_BOT, text: `<at>${TEAMS_BOT.name}</at>` }]);
  });

  it('a thread reply keeps the root’s conversation id under an id of its own; without a mention it has neither <at> nor entity', () => {
    const root = channelMention();
    const reply = threadReply({ rootId: root.id ?? '', text: 'also the logout test' });
    expect(reply.conversation?.id).toBe(root.conversation?.id);
    expect(reply.id).not.toBe(root.id);
    expect(mentionsOf(reply)).toHaveLength(1);
    const quiet = threadReply({ rootId: root.id ?? '', mention: false, text: 'thanks' });
    expect([quiet.text, mentionsOf(quiet)]).toEqual(['thanks', []]);
  });

  it('a group chat is a groupChat conversation (@thread.v2) with the tenant only; a 1:1 chat is personal, not a group, and unmentioned', () => {
    expect(groupChatMention()).toMatchObject({
      conversation: { id: TEAMS_IDS.groupChat, conversationType: 'groupChat', isGroup: true },
      channelData: { tenant: { id: TEAMS_IDS.tenant } },
    });
    expect(TEAMS_IDS.groupChat).toMatch(/^19:.+@thread\.v2$/);
    const personal = personalMessage({ text: 'new: a fresh start' });
    expect(personal.conversation).toEqual({ id: TEAMS_IDS.personalChat, conversationType: 'personal', tenantId: TEAMS_IDS.tenant });
    expect([personal.text, mentionsOf(personal)]).toEqual(['new: a fresh start', []]);
  });

  it('the bot’s own message comes from the bot', () => {
    expect(ownMessage().from).toEqual({ id: TEAMS_BOT.id, name: TEAMS_BOT.name });
  });
});

describe('card presses and installs', () => {
  it('Stop is an adaptiveCard/action invoke whose value is the Action.Execute with verb cancel_run, pressed manually on the card’s message', () => {
    const press = cardAction({ cardActivityId: '1760000000001', data: { runId: 'run-1' }, from: TEAMS_PEOPLE.grace });
    expect(press).toMatchObject({
      type: 'invoke',
      name: 'adaptiveCard/action',
      replyToId: '1760000000001',
      from: TEAMS_PEOPLE.grace,
      conversation: { id: `${TEAMS_IDS.channel};messageid=1760000000001`, conversationType: 'channel' },
      value: { action: { type: 'Action.Execute', verb: 'cancel_run', data: { runId: 'run-1' } }, trigger: 'manual' },
    });
    expect(cardAction({ cardActivityId: '1', conversationId: TEAMS_IDS.personalChat, conversationType: 'personal' }).conversation).not.toHaveProperty(
      'isGroup',
    );
  });

  it('being added to a team or a 1:1 chat is a conversationUpdate whose membersAdded holds the bot', () => {
    expect(installUpdate()).toMatchObject({
      type: 'conversationUpdate',
      membersAdded: [{ id: TEAMS_BOT.id }],
      channelData: { eventType: 'teamMemberAdded', team: { id: TEAMS_IDS.team } },
    });
    expect(installUpdate({ scope: 'personal' })).toMatchObject({
      membersAdded: [{ id: TEAMS_BOT.id }, { id: TEAMS_PEOPLE.ada.id, aadObjectId: TEAMS_PEOPLE.ada.aadObjectId }],
      conversation: { conversationType: 'personal' },
    });
  });
});

describe('evil bodies', () => {
  const evil = teamsEvilBodies(SERVICE_URL);
  const byName = (name: string) => evil.find((entry) => entry.name === name);
  const parsed = (body: string): unknown => {
    try {
      return JSON.parse(body);
    } catch {
      return undefined;
    }
  };

  it('none may be answered with a 5xx, and their names are unique', () => {
    expect(evil.filter((entry) => entry.statuses.some((status) => status >= 500))).toEqual([]);
    expect(new Set(evil.map((entry) => entry.name)).size).toBe(evil.length);
  });

  it('the too-large one is over 1 MiB, the long one under it; the malformed ones are no JSON object', () => {
    expect(Buffer.byteLength(byName('huge-text')?.body ?? '')).toBeGreaterThan(1024 * 1024);
    expect(Buffer.byteLength(byName('long-text')?.body ?? '')).toBeLessThan(1024 * 1024);
    for (const name of ['not-json', 'empty', 'json-array', 'json-null']) {
      const value = parsed(byName(name)?.body ?? '');
      expect(typeof value === 'object' && value !== null && !Array.isArray(value), name).toBe(false);
    }
    expect(byName('deeply-nested')?.body.length).toBeGreaterThan(500_000);
  });

  it('each token agrees with its body’s service URL, but for the one about a mismatch: a refusal is about the body, not the caller', () => {
    const disagreeing = evil.filter((entry) => {
      const serviceUrl = (parsed(entry.body) as { serviceUrl?: unknown } | undefined)?.serviceUrl;
      return typeof serviceUrl === 'string' && serviceUrl !== entry.token.serviceUrl;
    });
    expect(disagreeing.map((entry) => entry.name)).toEqual(['service-url-mismatch']);
    expect(byName('service-url-elsewhere')?.token.serviceUrl).toMatch(/^https:\/\/smba\.evil\.example\.com\//);
  });
});
