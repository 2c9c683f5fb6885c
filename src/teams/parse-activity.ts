/**
 * A verified activity's body, read (docs/teams.md): the message
 * and card-press (`invoke` `adaptiveCard/action`) activities the bot acts on, each field bounded.
 * Every other type is well-formed but not ours (200, ignored); a body that is not an activity is 400
 * naming the field. The token's `serviceurl` claim must name the activity's own `serviceUrl`, and that
 * URL must be one of Microsoft's (or `TEAMS_SERVICE_URLS`): the bot sends its access token there.
 */
import { z } from 'zod';
import type { WebhookParse, WebhookRequest } from '../http/signed-webhook.js';

const id = (max: number) => z.string().min(1).max(max);
const account = z.object({ id: id(200), name: z.string().max(500).optional(), aadObjectId: z.string().max(100).optional() });
const mention = z.object({ type: z.literal('mention'), mentioned: z.object({ id: z.string().max(200) }).optional() });

const common = {
  id: id(200),
  serviceUrl: id(500),
  from: account,
  recipient: account.optional(),
  conversation: z.object({
    id: id(400),
    conversationType: z.string().max(40).optional(),
    tenantId: z.string().max(100).optional(),
  }),
  channelData: z
    .object({
      tenant: z.object({ id: z.string().max(100) }).optional(),
      channel: z.object({ id: z.string().max(400) }).optional(),
      team: z.object({ id: z.string().max(400) }).optional(),
    })
    .optional(),
  replyToId: z.string().max(200).optional(),
};

const messageSchema = z.object({
  ...common,
  type: z.literal('message'),
  text: z.string().optional(),
  entities: z
    .array(z.looseObject({ type: z.string().max(100) }))
    .max(200)
    .optional(),
});

const cardPressSchema = z.object({
  ...common,
  type: z.literal('invoke'),
  name: z.literal('adaptiveCard/action'),
  value: z.object({ action: z.object({ type: z.string().max(60), verb: z.string().max(100).optional(), data: z.record(z.string(), z.unknown()).optional() }) }),
});

/** The bot added to a team or a chat, or removed, or the chat changed: nothing to act on, but its service URL is the tenant's. */
const updateSchema = z.object({
  type: z.enum(['conversationUpdate', 'installationUpdate']),
  serviceUrl: id(500),
  conversation: common.conversation,
  channelData: common.channelData,
});

export type MessageActivity = z.output<typeof messageSchema> & { mentionedIds: string[] };
export type CardPressActivity = z.output<typeof cardPressSchema>;
export type UpdateActivity = z.output<typeof updateSchema>;
export type TeamsActivity = MessageActivity | CardPressActivity | UpdateActivity;

/** Microsoft's Bot Connector hosts (public cloud, GCC, GCC High, DoD). */
const MICROSOFT_SERVICE_HOSTS = new Set([
  'smba.trafficmanager.net',
  'smba.infra.gcc.teams.microsoft.com',
  'smba.infra.gov.teams.microsoft.us',
  'smba.infra.dod.teams.microsoft.us',
]);

const withoutSlash = (url: string) => url.replace(/\/+$/, '');

/** Whether the bot may send its token to `serviceUrl`: one of Microsoft's hosts over https, or one the operator listed. */
export function acceptedServiceUrl(serviceUrl: string, extra: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(serviceUrl);
  } catch {
    return false;
  }
  // The connector's calls are built by appending to the text: a user, query or fragment would carry or cut them.
  if (url.username !== '' || url.password !== '' || /[?#]/.test(serviceUrl)) return false;
  if (url.protocol === 'https:' && MICROSOFT_SERVICE_HOSTS.has(url.hostname)) return true;
  // Compared as the URL parser resolves it (as fetch will): dot segments cannot climb out of an entry's path.
  const where = withoutSlash(url.href);
  return extra.some((allowed) => where.startsWith(allowed) && [undefined, '/'].includes(where.slice(allowed.length)[0]));
}

const pathOf = (issue: z.core.$ZodIssue | undefined) => (issue ? issue.path.map(String).join('.') : '');

/** What `parse` made of a body: an activity to act on, one to ignore, or 400. `unauthorised`: the token does not vouch for this body. */
export type ParsedActivity = WebhookParse<TeamsActivity | { unauthorised: string }>;

export function parseActivity(text: string, request: Pick<WebhookRequest, 'claims'>, serviceUrls: readonly string[]): ParsedActivity {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'the body is not JSON' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { ok: false, reason: 'the body is not an activity (a JSON object)' };
  const activity = json as Record<string, unknown>;
  const type = activity['type'];
  if (typeof type !== 'string') return { ok: false, reason: 'type: is missing or not text' };
  const serviceUrl = activity['serviceUrl'];
  // Checked before the type: whatever it is, a body the token was not issued for is not the connector's.
  const claim = request.claims?.['serviceurl'];
  if (typeof serviceUrl !== 'string' || typeof claim !== 'string' || withoutSlash(claim) !== withoutSlash(serviceUrl)) {
    return { ok: true, value: { unauthorised: 'the token’s serviceurl claim does not name the activity’s serviceUrl' } };
  }
  if (!acceptedServiceUrl(serviceUrl, serviceUrls)) return { ok: true, value: { unauthorised: 'serviceUrl is not a Bot Connector service this bot answers' } };
  if (type === 'message') {
    const parsed = messageSchema.safeParse(activity);
    if (!parsed.success) return { ok: false, reason: `${pathOf(parsed.error.issues[0])}: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
    const mentionedIds = (parsed.data.entities ?? []).flatMap((entity) => {
      const found = mention.safeParse(entity);
      return found.success && found.data.mentioned ? [found.data.mentioned.id] : [];
    });
    return { ok: true, value: { ...parsed.data, mentionedIds } };
  }
  if (type === 'invoke' && activity['name'] === 'adaptiveCard/action') {
    const parsed = cardPressSchema.safeParse(activity);
    if (!parsed.success) return { ok: true, ignored: 'a card press without an action', log: { type } };
    return { ok: true, value: parsed.data };
  }
  if (type === 'conversationUpdate' || type === 'installationUpdate') {
    const parsed = updateSchema.safeParse(activity);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: true, ignored: 'an update without its conversation', log: { type } };
  }
  return { ok: true, ignored: 'an activity type the bot does not act on', log: { type: type.slice(0, 40) } };
}
