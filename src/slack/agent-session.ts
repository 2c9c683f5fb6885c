/**
 * Slack's agent sessions (docs.slack.dev/ai/agent-sessions): every run shown in a Slack thread is a
 * session in that thread. A `session` row becomes one `agents.sessions.setStatus`: `working` →
 * `processing` (Slack's "Working…" indicator and, for an app subscribed to `agent_session_stopped`,
 * its stop button), `waiting` → `suspended` (BLOCKED: the agent needs a person), `idle` → `active`
 * (ended or stopped: ready for the next request in the thread). The status never changes by itself
 * except that Slack turns a `processing` session older than an hour `active`.
 *
 * The session is created by its first call, with the run's title and, from the run's first row, who
 * asked (`initiator_user_id`, which Slack takes only from a member of the channel: refused, the call
 * is made again without it). A session that already existed keeps its title: the run's first row
 * renames it. What Slack refuses for good is said once per reason at warn and skipped — a thread
 * without an indicator must not hold back its messages — and so are Slack's warnings (e.g. the app
 * not subscribed to `agent_session_stopped`), naming what to fix in the app's settings.
 */
import type { SlackCalls } from './slack-calls.js';
import type { Logger } from '../core/ports/logger.js';
import type { OutboxMessage, SessionPhase } from '../core/ports/messages.js';
import { RETRYABLE_PLATFORM_ERRORS, redactSecrets, slackErrorCode, toNotifierError } from './slack-errors.js';

/** Slack's session status for each phase of a run. */
export const SESSION_STATUS: Readonly<Record<SessionPhase, 'processing' | 'suspended' | 'active'>> = {
  working: 'processing',
  waiting: 'suspended',
  idle: 'active',
};

/** The warning `agents.sessions.setStatus` answers while the app does not subscribe to `agent_session_stopped`. */
export const MISSING_STOP_SUBSCRIPTION = 'missing_agent_session_stopped_event_subscription';

/** Slack thread and channel destinations (`slack:<channel>[:<thread ts>]`): a run's thread there is a session. */
export function showsSlackSession(destination: string): boolean {
  return /^slack:[A-Z0-9]{2,40}(?::\d{1,12}\.\d{1,12})?$/.test(destination);
}

/** Slack's longest session title. */
const MAX_TITLE = 200;
const SLACK_USER = /^[UW][A-Z0-9]{2,40}$/;
/** Refusals that are about the token or the app, not about the initiator: no second call without it helps. */
const NOT_THE_INITIATOR: ReadonlySet<string> = new Set([
  'invalid_auth',
  'not_authed',
  'token_revoked',
  'account_inactive',
  'missing_scope',
  'not_allowed_token_type',
]);

type SessionMessage = Extract<OutboxMessage, { kind: 'session' }>;
type SetStatusArguments = Parameters<SlackCalls['agents']['sessions']['setStatus']>[0];
/** The fields of Slack's answer read here, as untyped JSON (`warning` and the session's `title` are not always there). */
type Answer = Record<string, unknown>;

function answerOf(result: object): Answer {
  return { ...result };
}

/** Sets the sessions of runs' threads; one per process (it remembers what it has warned about). */
export class SlackSessions {
  private readonly warned = new Set<string>();

  constructor(
    private readonly deps: {
      /** A client that does not warn of its own (`SlackWebApi` with `warnings: false`): Slack's warnings are said here, once. */
      client: SlackCalls;
      logger: Logger;
      scrub?: (text: string) => string;
    },
  ) {}

  /** Moves the session of the thread to the message's phase; resolves with what was set or why nothing was. */
  async set(thread: { channel: string; threadTs: string }, message: SessionMessage): Promise<unknown> {
    const status = SESSION_STATUS[message.phase];
    const title = clip(message.title);
    const initiator = message.initiator?.platform === 'slack' && SLACK_USER.test(message.initiator.id) ? message.initiator.id : undefined;
    const args = { channel_id: thread.channel, thread_ts: thread.threadTs, status, title };
    let answer: Answer;
    try {
      answer = await this.setStatus(initiator ? { ...args, initiator_user_id: initiator } : args);
    } catch (error) {
      const code = slackErrorCode(error);
      if (!initiator || code === undefined || RETRYABLE_PLATFORM_ERRORS.has(code) || NOT_THE_INITIATOR.has(code)) return this.refused(error, thread);
      // Slack takes an initiator only from a member of the channel: the session is created without one.
      this.deps.logger.debug({ channel: thread.channel, code }, 'Slack refused the session initiator; setting the session without it');
      try {
        answer = await this.setStatus(args);
      } catch (again) {
        return this.refused(again, thread);
      }
    }
    this.sayWarnings(answer);
    // A session the thread already had (an earlier run's) keeps its title: the run's first row renames it.
    const renamed = message.opening === true && typeof answer['title'] === 'string' && answer['title'] !== title && (await this.rename(thread, title));
    return { status, ...(renamed && { renamed }) };
  }

  private async setStatus(args: SetStatusArguments): Promise<Answer> {
    return answerOf(await this.deps.client.agents.sessions.setStatus(args));
  }

  /** Best effort: a title Slack will not take is left as it is. */
  private async rename(thread: { channel: string; threadTs: string }, title: string): Promise<boolean> {
    try {
      this.sayWarnings(answerOf(await this.deps.client.agents.sessions.rename({ channel_id: thread.channel, thread_ts: thread.threadTs, title })));
      return true;
    } catch (error) {
      this.refused(error, thread, 'agents.sessions.rename');
      return false;
    }
  }

  /** A retryable failure is thrown for the outbox to retry; a refusal is said once per reason and skipped. */
  private refused(error: unknown, thread: { channel: string }, method = 'agents.sessions.setStatus'): { skipped: string } {
    const mapped = toNotifierError(error, method);
    if (mapped.retryable) throw mapped;
    if (!this.warned.has(`error:${mapped.code}`)) {
      this.warned.add(`error:${mapped.code}`);
      this.deps.logger.warn(
        { channel: thread.channel, code: this.safe(mapped.code) },
        `Slack refused ${method} (${this.safe(mapped.code)}): runs' threads show no working indicator or stop button. Check that the app is an agent ` +
          '(features.agent_view in manifest.yml, the Agent page of the app settings) with the chat:write scope; said once per reason',
      );
    }
    return { skipped: mapped.code };
  }

  /** Slack's warnings in an answer (`warning`, `response_metadata.warnings`), each said once at warn. */
  private sayWarnings(answer: Answer): void {
    const metadata = answer['response_metadata'] as { warnings?: unknown } | undefined;
    const listed: unknown[] = Array.isArray(metadata?.warnings) ? (metadata.warnings as unknown[]) : [];
    const inline = typeof answer['warning'] === 'string' ? answer['warning'].split(',') : [];
    for (const warning of [...listed, ...inline]) {
      if (typeof warning !== 'string' || warning.trim() === '' || this.warned.has(warning.trim())) continue;
      const code = warning.trim();
      this.warned.add(code);
      if (code === MISSING_STOP_SUBSCRIPTION) {
        this.deps.logger.warn(
          { code },
          'Slack shows runs as working without a stop button: the app does not subscribe to the agent_session_stopped event. In the app settings, ' +
            'Event Subscriptions → Subscribe to bot events → add agent_session_stopped (manifest.yml has it) and save; said once',
        );
      } else {
        this.deps.logger.warn({ code: this.safe(code) }, `Slack warned about agent sessions: ${this.safe(code)}; said once`);
      }
    }
  }

  private safe(text: string): string {
    return redactSecrets((this.deps.scrub ?? ((value: string) => value))(text)).slice(0, 100);
  }
}

function clip(title: string): string {
  const trimmed = title.trim() || 'agent run';
  return trimmed.length > MAX_TITLE ? `${trimmed.slice(0, MAX_TITLE - 1)}…` : trimmed;
}
