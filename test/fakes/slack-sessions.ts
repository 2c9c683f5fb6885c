/**
 * The fake Web API's agent sessions (docs.slack.dev/ai/agent-sessions, the methods'
 * reference pages): `agents.sessions.setStatus` creates a thread's session on its first call — with
 * `title` (at most 200 characters) and `initiator_user_id` (a member of the channel), both ignored
 * afterwards — and sets its status (`active | processing | suspended | closed`); `agents.sessions.rename`
 * retitles an existing one (1–200 characters). While the app is not subscribed to
 * `agent_session_stopped`, every setStatus answer carries the warning
 * `missing_agent_session_stopped_event_subscription` (`warning` and `response_metadata.warnings`).
 * Slack's docs name no error codes for these methods: the fake answers `invalid_arguments` for a
 * missing or wrong argument, `user_not_in_channel` for an initiator outside the channel and
 * `not_authorized` for renaming a thread without a session (as third parties observed it).
 */
import type { SlackAnswer } from './slack-state.js';

type Args = Record<string, unknown>;

/** One thread's session as the fake keeps it. */
export interface FakeAgentSession {
  channel: string;
  threadTs: string;
  status: string;
  title: string | undefined;
  initiator: string | undefined;
  /** Every status set, in order (a repeated one too): what people saw change. */
  statuses: string[];
  /** Every title given by rename, in order. */
  renames: string[];
}

const STATUSES = new Set(['active', 'processing', 'suspended', 'closed']);
const TS = /^\d{1,12}\.\d{1,12}$/;
const MISSING_STOP = 'missing_agent_session_stopped_event_subscription';
const fail = (error: string): SlackAnswer => ({ ok: false, error });
const text = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

export class FakeAgentSessions {
  private readonly byThread = new Map<string, FakeAgentSession>();
  private readonly outsiders = new Set<string>();
  /** Whether the app subscribes to `agent_session_stopped` (default yes); without it setStatus warns. */
  stopSubscribed = true;

  clear(): void {
    this.byThread.clear();
    this.outsiders.clear();
    this.stopSubscribed = true;
  }

  /** `user` is not a member of `channel`: an initiator the fake refuses there. */
  exclude(channel: string, user: string): void {
    this.outsiders.add(`${channel}/${user}`);
  }

  get(channel: string, threadTs: string): FakeAgentSession | undefined {
    const session = this.byThread.get(`${channel}/${threadTs}`);
    return session && structuredClone(session);
  }

  all(): FakeAgentSession[] {
    return [...this.byThread.values()].map((session) => structuredClone(session));
  }

  /** Answers `agents.sessions.*`; `undefined` for any other method. */
  handle(method: string, args: Args): SlackAnswer | undefined {
    if (method === 'agents.sessions.setStatus') return this.setStatus(args);
    if (method === 'agents.sessions.rename') return this.rename(args);
    return undefined;
  }

  private setStatus(args: Args): SlackAnswer {
    const { channel_id: channel, thread_ts: threadTs, status, title, initiator_user_id: initiator } = args;
    if (!text(channel) || !text(threadTs) || !TS.test(threadTs) || typeof status !== 'string' || !STATUSES.has(status)) return fail('invalid_arguments');
    if (title !== undefined && (typeof title !== 'string' || title.length > 200)) return fail('invalid_arguments');
    if (initiator !== undefined && !text(initiator)) return fail('invalid_arguments');
    const key = `${channel}/${threadTs}`;
    let session = this.byThread.get(key);
    if (!session) {
      if (text(initiator) && this.outsiders.has(`${channel}/${initiator}`)) return fail('user_not_in_channel');
      session = {
        channel,
        threadTs,
        status,
        title: text(title) ? title : undefined,
        initiator: text(initiator) ? initiator : undefined,
        statuses: [],
        renames: [],
      };
      this.byThread.set(key, session);
    }
    session.status = status;
    session.statuses.push(status);
    return {
      ok: true,
      status,
      agent_status: status,
      ...(session.title !== undefined && { title: session.title }),
      ...(!this.stopSubscribed && { warning: MISSING_STOP, response_metadata: { warnings: [MISSING_STOP] } }),
    };
  }

  private rename(args: Args): SlackAnswer {
    const { channel_id: channel, thread_ts: threadTs, title } = args;
    if (!text(channel) || !text(threadTs) || !text(title) || title.length > 200) return fail('invalid_arguments');
    const session = this.byThread.get(`${channel}/${threadTs}`);
    if (!session) return fail('not_authorized');
    session.title = title;
    session.renames.push(title);
    return { ok: true, title };
  }
}
