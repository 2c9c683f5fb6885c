/**
 * In-memory workspace behind the fake Slack Web API (see slack-api.ts): messages, reactions, users and
 * channels, and the handlers of the write methods (chat.*, reactions.*, auth.test, apps.connections.open;
 * reads are in slack-reads.ts), answered with Slack's shapes and error codes.
 */

/** Metadata attached to a message (`chat.postMessage` / `chat.update` `metadata`). */
export interface SlackMetadata {
  event_type: string;
  event_payload: Record<string, unknown>;
}

/** A message stored by the fake, as Slack would return it (plus `channel`). */
export interface FakeMessage {
  type: 'message';
  channel: string;
  ts: string;
  text: string;
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  subtype?: string;
  team?: string;
  blocks?: unknown[];
  attachments?: unknown[];
  metadata?: SlackMetadata;
  edited?: { user: string; ts: string };
  parent_user_id?: string;
  reply_count?: number;
  latest_reply?: string;
}

/** Options of the fake; see `startFakeSlackApi`. */
export interface FakeSlackOptions {
  /** The bot's user id (auth.test `user_id`, `user` of bot posts). Default 'UBOT'. */
  botUserId?: string;
  /** The bot id (auth.test `bot_id`, `bot_id` of bot posts). Default 'BBOT'. */
  botId?: string;
  /** Workspace id. Default 'T0FAKETEAM'. */
  teamId?: string;
  /** When set, any other bot token is answered `invalid_auth`. */
  token?: string;
  /** When set, `apps.connections.open` accepts only this app token. */
  appToken?: string;
  /** URL answered by `apps.connections.open`. Default 'ws://127.0.0.1:1/'. */
  socketUrl?: string;
  /**
   * Strict mode answers `message_not_found` / `user_not_found` / `channel_not_found` for ids the fake
   * has never seen. Default false: reactions and permalinks on unseeded messages succeed, unknown users
   * and channels get generated profiles (so tests need not seed every event they send).
   */
  strict?: boolean;
}

/** The answer of one handler: JSON body, always with `ok`. */
export type SlackAnswer = { ok: boolean; error?: string; [key: string]: unknown };

/** Parsed arguments of one call. */
export type Args = Record<string, unknown>;

/** Seconds part of the first ts the fake hands out. */
export const BASE_SECONDS = 1_700_000_000;
const MAX_TEXT = 40_000;

/** `{ok:false, error}`. */
export const fail = (error: string): SlackAnswer => ({ ok: false, error });
/** A non-empty string (numbers stringified) or undefined. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);
/** Slack's boolean arguments: true, 'true', '1', 1. */
export const truthy = (v: unknown): boolean => v === true || v === 'true' || v === '1' || v === 1;

/** A seeded user; `email` is found by users.lookupByEmail unless `email_confirmed` is false (Slack finds only confirmed ones). */
export interface FakeSlackUser {
  real_name?: string;
  display_name?: string;
  is_bot?: boolean;
  email?: string;
  email_confirmed?: boolean;
  deleted?: boolean;
}

/** Workspace state plus one handler per supported Web API method. */
export class SlackState {
  readonly botUserId: string;
  readonly botId: string;
  readonly teamId: string;
  readonly appId = 'A0FAKEAPP';
  private counter = 0;
  /** channel → messages in posting order (thread replies included). */
  private byChannel = new Map<string, FakeMessage[]>();
  /** `${channel} ${ts}` → reaction name → user ids. */
  private reactionMap = new Map<string, Map<string, string[]>>();
  readonly users = new Map<string, FakeSlackUser>();
  readonly channels = new Map<string, { name: string; is_im?: boolean }>();
  /** Ephemeral messages: recorded, never in history. */
  readonly ephemerals: Array<{ channel: string; user: string; text: string; blocks?: unknown[]; message_ts: string }> = [];

  constructor(readonly options: FakeSlackOptions) {
    this.botUserId = options.botUserId ?? 'UBOT';
    this.botId = options.botId ?? 'BBOT';
    this.teamId = options.teamId ?? 'T0FAKETEAM';
  }

  /** Forgets every message, reaction, user and channel (the ts counter keeps increasing). */
  clear(): void {
    this.byChannel.clear();
    this.reactionMap.clear();
    this.users.clear();
    this.channels.clear();
    this.ephemerals.length = 0;
  }

  /** A fresh, strictly increasing ts such as "1700000000.000100". */
  nextTs(): string {
    this.counter += 100;
    const seconds = BASE_SECONDS + Math.floor(this.counter / 1_000_000);
    return `${seconds}.${String(this.counter % 1_000_000).padStart(6, '0')}`;
  }

  find(channel: string, ts: string): FakeMessage | undefined {
    return this.byChannel.get(channel)?.find((m) => m.ts === ts);
  }

  /** Messages of a channel (all, posting order) or of one thread (parent first, then replies). */
  list(channel: string, threadTs?: string): FakeMessage[] {
    const all = this.byChannel.get(channel) ?? [];
    const picked = threadTs === undefined ? all : all.filter((m) => m.ts === threadTs || m.thread_ts === threadTs);
    return picked
      .slice()
      .sort((a, b) => compareTs(a.ts, b.ts))
      .map((m) => structuredClone(m));
  }

  reactionNames(channel: string, ts: string): string[] {
    return [...(this.reactionMap.get(`${channel} ${ts}`)?.keys() ?? [])];
  }

  setUser(id: string, profile: FakeSlackUser): void {
    this.users.set(id, { ...profile });
  }

  setChannel(id: string, info: { name: string; is_im?: boolean }): void {
    this.channels.set(id, { ...info });
  }

  /** Stores a message (user or bot) and keeps the thread parent's reply counters up to date. */
  store(message: FakeMessage): FakeMessage {
    const list = this.byChannel.get(message.channel) ?? [];
    this.byChannel.set(message.channel, list);
    list.push(message);
    const parentTs = message.thread_ts;
    if (parentTs !== undefined && parentTs !== message.ts) {
      const parent = list.find((m) => m.ts === parentTs);
      if (parent) {
        parent.thread_ts = parent.ts;
        parent.reply_count = (parent.reply_count ?? 0) + 1;
        parent.latest_reply = message.ts;
        if (parent.user !== undefined) message.parent_user_id = parent.user;
      }
    }
    return message;
  }

  /** Dispatches one write (or auth) method; `undefined` for any other method (see slack-reads.ts). */
  handle(method: string, args: Args): SlackAnswer | undefined {
    switch (method) {
      case 'api.test':
        return { ok: true, args };
      case 'auth.test':
        return this.authTest();
      case 'chat.postMessage':
        return this.postMessage(args);
      case 'chat.update':
        return this.update(args);
      case 'chat.postEphemeral':
        return this.postEphemeral(args);
      case 'chat.getPermalink':
        return this.permalink(args);
      case 'reactions.add':
        return this.reaction(args, true);
      case 'reactions.remove':
        return this.reaction(args, false);
      case 'apps.connections.open':
        return { ok: true, url: this.options.socketUrl ?? 'ws://127.0.0.1:1/' };
      default:
        return undefined;
    }
  }

  private authTest(): SlackAnswer {
    return {
      ok: true,
      url: 'https://fake-team.slack.com/',
      team: 'Fake Team',
      user: 'agent-bridge',
      team_id: this.teamId,
      user_id: this.botUserId,
      bot_id: this.botId,
      is_enterprise_install: false,
    };
  }

  private postMessage(args: Args): SlackAnswer {
    const channel = str(args['channel']);
    if (channel === undefined) return fail('channel_not_found');
    const content = this.content(args);
    if ('error' in content) return fail(content.error);
    if (content.text === '' && !content.blocks && !content.attachments) return fail('no_text');
    const threadTs = str(args['thread_ts']);
    if (threadTs !== undefined && this.options.strict && !this.find(channel, threadTs)) return fail('thread_not_found');
    const message = this.store({
      type: 'message',
      channel,
      ts: this.nextTs(),
      text: content.text,
      user: this.botUserId,
      bot_id: this.botId,
      app_id: this.appId,
      team: this.teamId,
      ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
      ...(content.blocks ? { blocks: content.blocks } : {}),
      ...(content.attachments ? { attachments: content.attachments } : {}),
      ...(content.metadata ? { metadata: content.metadata } : {}),
    });
    return { ok: true, channel, ts: message.ts, message: this.wire(message, true) };
  }

  private update(args: Args): SlackAnswer {
    const channel = str(args['channel']);
    const ts = str(args['ts']);
    if (channel === undefined) return fail('channel_not_found');
    const message = ts === undefined ? undefined : this.find(channel, ts);
    if (!message) return fail('message_not_found');
    if (message.bot_id !== this.botId) return fail('cant_update_message');
    const content = this.content(args);
    if ('error' in content) return fail(content.error);
    if (args['text'] !== undefined) message.text = content.text;
    if (content.blocks) message.blocks = content.blocks;
    if (content.attachments) message.attachments = content.attachments;
    if (content.metadata) message.metadata = content.metadata;
    message.edited = { user: this.botUserId, ts: this.nextTs() };
    return { ok: true, channel, ts: message.ts, text: message.text, message: this.wire(message, true) };
  }

  private postEphemeral(args: Args): SlackAnswer {
    const channel = str(args['channel']);
    const user = str(args['user']);
    if (channel === undefined) return fail('channel_not_found');
    if (user === undefined) return fail('user_not_found');
    const content = this.content(args);
    if ('error' in content) return fail(content.error);
    if (content.text === '' && !content.blocks) return fail('no_text');
    const message_ts = this.nextTs();
    this.ephemerals.push({ channel, user, text: content.text, ...(content.blocks ? { blocks: content.blocks } : {}), message_ts });
    return { ok: true, message_ts };
  }

  private permalink(args: Args): SlackAnswer {
    const channel = str(args['channel']);
    const ts = str(args['message_ts']);
    if (channel === undefined) return fail('channel_not_found');
    if (ts === undefined) return fail('message_not_found');
    const message = this.find(channel, ts);
    if (!message && this.options.strict) return fail('message_not_found');
    const thread = message?.thread_ts !== undefined && message.thread_ts !== ts ? `?thread_ts=${message.thread_ts}&cid=${channel}` : '';
    return { ok: true, channel, permalink: `https://fake-team.slack.com/archives/${channel}/p${ts.replace('.', '')}${thread}` };
  }

  private reaction(args: Args, add: boolean): SlackAnswer {
    const channel = str(args['channel']);
    const ts = str(args['timestamp']);
    const name = str(args['name'])?.replace(/^:|:$/g, '');
    if (channel === undefined) return fail('channel_not_found');
    if (ts === undefined) return fail('no_item_specified');
    if (name === undefined) return fail('invalid_name');
    if (this.options.strict && !this.find(channel, ts)) return fail('message_not_found');
    const key = `${channel} ${ts}`;
    const names = this.reactionMap.get(key) ?? new Map<string, string[]>();
    this.reactionMap.set(key, names);
    const users = names.get(name) ?? [];
    const mine = users.includes(this.botUserId);
    if (add) {
      if (mine) return fail('already_reacted');
      names.set(name, [...users, this.botUserId]);
    } else {
      if (!mine) return fail('no_reaction');
      const rest = users.filter((u) => u !== this.botUserId);
      if (rest.length === 0) names.delete(name);
      else names.set(name, rest);
    }
    return { ok: true };
  }

  /** text / blocks / attachments / metadata from the arguments, validated like Slack does. */
  private content(args: Args): { text: string; blocks?: unknown[]; attachments?: unknown[]; metadata?: SlackMetadata } | { error: string } {
    const text = typeof args['text'] === 'string' ? args['text'] : '';
    if (text.length > MAX_TEXT) return { error: 'msg_too_long' };
    const out: { text: string; blocks?: unknown[]; attachments?: unknown[]; metadata?: SlackMetadata } = { text };
    const { blocks, attachments, metadata } = args;
    if (blocks !== undefined && blocks !== '') {
      if (!Array.isArray(blocks)) return { error: 'invalid_blocks_format' };
      if (blocks.length > 50 || !blocks.every((b) => typeof b === 'object' && b !== null && typeof (b as Args)['type'] === 'string'))
        return { error: 'invalid_blocks' };
      if (blocks.length > 0) out.blocks = blocks;
    }
    if (attachments !== undefined && attachments !== '') {
      if (!Array.isArray(attachments)) return { error: 'invalid_attachments' };
      out.attachments = attachments;
    }
    if (metadata !== undefined && metadata !== '') {
      const m = metadata as Args | null;
      if (typeof m !== 'object' || m === null || typeof m['event_type'] !== 'string' || typeof m['event_payload'] !== 'object' || m['event_payload'] === null) {
        return { error: 'invalid_metadata_format' };
      }
      out.metadata = { event_type: m['event_type'], event_payload: m['event_payload'] as Record<string, unknown> };
    }
    return out;
  }

  /** A message as the Web API shows it: no `channel`, reactions inline, metadata only when asked. */
  wire(message: FakeMessage, withMetadata: boolean): Record<string, unknown> {
    const { channel, metadata, ...rest } = structuredClone(message);
    const out: Record<string, unknown> = { ...rest };
    if (message.bot_id === this.botId) {
      out['bot_profile'] = { id: this.botId, app_id: this.appId, name: 'agent-bridge', deleted: false, team_id: this.teamId };
    }
    if (withMetadata && metadata) out['metadata'] = metadata;
    const reactions = this.reactionMap.get(`${channel} ${message.ts}`);
    if (reactions && reactions.size > 0) {
      out['reactions'] = [...reactions].map(([name, users]) => ({ name, users, count: users.length }));
    }
    return out;
  }
}

/** Orders Slack timestamps ("seconds.micros") numerically. */
export function compareTs(a: string, b: string): number {
  const [as = '0', af = ''] = a.split('.');
  const [bs = '0', bf = ''] = b.split('.');
  const s = Number(as) - Number(bs);
  return s !== 0 ? Math.sign(s) : Math.sign(Number(af.padEnd(6, '0')) - Number(bf.padEnd(6, '0')));
}
