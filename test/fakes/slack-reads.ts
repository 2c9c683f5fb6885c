/**
 * Read methods of the fake Slack Web API: conversations.replies / history (with paging and metadata),
 * conversations.info, users.info and users.lookupByEmail.
 */
import { BASE_SECONDS, compareTs, fail, str, truthy, type Args, type FakeMessage, type SlackAnswer, type SlackState } from './slack-state.js';

/** conversations.replies: the thread oldest first, parent included. */
export function conversationsReplies(state: SlackState, args: Args): SlackAnswer {
  const channel = str(args['channel']);
  const ts = str(args['ts']);
  if (channel === undefined) return fail('channel_not_found');
  if (ts === undefined) return fail('thread_not_found');
  const thread = state.list(channel, ts);
  if (thread.length === 0) return fail('thread_not_found');
  return page(state, thread, args);
}

/** conversations.history: top-level messages and thread parents, newest first. */
export function conversationsHistory(state: SlackState, args: Args): SlackAnswer {
  const channel = str(args['channel']);
  if (channel === undefined) return fail('channel_not_found');
  const top = state
    .list(channel)
    .filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts)
    .reverse();
  return { ...page(state, top, args), pin_count: 0 };
}

/** `limit` / `cursor` paging (cursor = base64 offset), `oldest` / `latest` filters, metadata on request. */
function page(state: SlackState, messages: FakeMessage[], args: Args): SlackAnswer {
  const oldest = str(args['oldest']);
  const latest = str(args['latest']);
  const inclusive = truthy(args['inclusive']);
  const inRange = messages.filter(
    (m) =>
      (oldest === undefined || (inclusive ? compareTs(m.ts, oldest) >= 0 : compareTs(m.ts, oldest) > 0)) &&
      (latest === undefined || (inclusive ? compareTs(m.ts, latest) <= 0 : compareTs(m.ts, latest) < 0)),
  );
  const limit = Math.min(Math.max(Number(args['limit'] ?? 1000) || 1000, 1), 1000);
  const cursor = str(args['cursor']);
  const offset = cursor === undefined ? 0 : Number(Buffer.from(cursor, 'base64').toString('utf8').replace('offset:', ''));
  if (!Number.isInteger(offset) || offset < 0) return fail('invalid_cursor');
  const slice = inRange.slice(offset, offset + limit);
  const hasMore = offset + limit < inRange.length;
  const withMeta = truthy(args['include_all_metadata']);
  return {
    ok: true,
    messages: slice.map((m) => state.wire(m, withMeta)),
    has_more: hasMore,
    response_metadata: { next_cursor: hasMore ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '' },
  };
}

/** conversations.info: seeded channel, else one derived from the id (D… = im). */
export function conversationsInfo(state: SlackState, args: Args): SlackAnswer {
  const id = str(args['channel']);
  if (id === undefined) return fail('channel_not_found');
  const known = state.channels.get(id);
  if (!known && state.options.strict) return fail('channel_not_found');
  const is_im = known?.is_im ?? id.startsWith('D');
  const name = known?.name ?? id.toLowerCase();
  return {
    ok: true,
    channel: {
      id,
      name,
      is_im,
      is_channel: !is_im && !id.startsWith('G'),
      is_private: is_im || id.startsWith('G'),
      is_member: true,
      created: BASE_SECONDS - 86_400,
    },
  };
}

/** users.info: seeded profile, else a generated one (the bot user is a bot). */
export function usersInfo(state: SlackState, args: Args): SlackAnswer {
  const id = str(args['user']);
  if (id === undefined) return fail('user_not_found');
  const known = state.users.get(id);
  if (!known && state.options.strict && id !== state.botUserId) return fail('user_not_found');
  const isBot = known?.is_bot ?? id === state.botUserId;
  const real_name = known?.real_name ?? (id === state.botUserId ? 'agent-bridge' : `User ${id}`);
  const display_name = known?.display_name ?? '';
  return {
    ok: true,
    user: {
      id,
      team_id: state.teamId,
      name: (display_name || real_name).toLowerCase().replace(/\s+/g, '.'),
      deleted: known?.deleted ?? false,
      real_name,
      tz: 'Europe/Berlin',
      is_bot: isBot,
      is_app_user: false,
      profile: {
        real_name,
        display_name,
        real_name_normalized: real_name,
        display_name_normalized: display_name,
        team: state.teamId,
        ...(known?.email !== undefined && { email: known.email }),
      },
    },
  };
}

/** users.lookupByEmail: the seeded user with this confirmed email (case-insensitive), else `users_not_found`. */
export function usersLookupByEmail(state: SlackState, args: Args): SlackAnswer {
  const email = str(args['email'])?.toLowerCase();
  if (email === undefined || email === '') return fail('invalid_email');
  const found = [...state.users].find(([, user]) => user.email?.toLowerCase() === email && user.email_confirmed !== false);
  if (!found) return fail('users_not_found');
  return usersInfo(state, { user: found[0] });
}

/** Dispatches one read method; `undefined` for any other method. */
export function handleRead(state: SlackState, method: string, args: Args): SlackAnswer | undefined {
  switch (method) {
    case 'conversations.replies':
      return conversationsReplies(state, args);
    case 'conversations.history':
      return conversationsHistory(state, args);
    case 'conversations.info':
      return conversationsInfo(state, args);
    case 'users.info':
      return usersInfo(state, args);
    case 'users.lookupByEmail':
      return usersLookupByEmail(state, args);
    default:
      return undefined;
  }
}
