/**
 * Teams places (`teams:<conversation id>`, docs/teams.md): a channel (`19:…@thread.tacv2`: a post there
 * starts a thread of its own), a channel thread (`<channel id>;messageid=<root id>`), a group chat
 * (`19:…@thread.v2`), a 1:1 chat (`a:…`), or a person (`teams:<Entra object id>`: their 1:1 chat with
 * the bot, created when first needed).
 */
import { GUID, TEAMS_CHANNEL_ID } from './config/ids.js';

/** A Teams place taken apart. */
export type TeamsPlace =
  | { kind: 'channel'; conversationId: string; channelId: string }
  | { kind: 'thread'; conversationId: string; channelId: string; rootId: string }
  | { kind: 'chat'; conversationId: string }
  | { kind: 'person'; aadObjectId: string };

const THREAD = /^(19:[^;\s]{1,250});messageid=(\d{1,20})$/;
/** Conversation ids as Teams writes them: bounded, printable, no whitespace. */
const CONVERSATION = /^[A-Za-z0-9:_@.;=+-]{3,400}$/;

/** Parses a place; undefined when it is not one of Teams'. */
export function parseTeamsPlace(place: string): TeamsPlace | undefined {
  if (!place.startsWith('teams:')) return undefined;
  const id = place.slice('teams:'.length);
  if (GUID.test(id)) return { kind: 'person', aadObjectId: id.toLowerCase() };
  if (!CONVERSATION.test(id)) return undefined;
  const thread = THREAD.exec(id);
  if (thread) return { kind: 'thread', conversationId: id, channelId: thread[1]!, rootId: thread[2]! };
  // Teams' channels are `@thread.tacv2`, and older teams' `@thread.skype`; group chats are `@thread.v2`.
  if (TEAMS_CHANNEL_ID.test(id) && !id.endsWith('@thread.v2')) return { kind: 'channel', conversationId: id, channelId: id };
  return { kind: 'chat', conversationId: id };
}

/** The place of a channel thread. */
export const threadPlace = (channelId: string, rootId: string) => `teams:${channelId};messageid=${rootId}`;

/** The conversation a conversation id belongs to, without its thread (`…;messageid=…`): where a service URL is remembered. */
export const conversationBase = (conversationId: string) => conversationId.replace(/;messageid=\d+$/, '');
