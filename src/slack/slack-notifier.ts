/**
 * The notifier for `slack:<channel>:<thread_ts>` destinations (docs/architecture.md §6): 👀 and one status message
 * per run, edited in place; a new thread message for BLOCKED, each end state and failures; ✅ / ❌
 * replacing 👀 at the end; ✉️ on an accepted follow-up; the thread's agent session (agent-session.ts).
 *
 * Exactly once: every new message carries `metadata {event_type: 'agent_bridge', event_payload: {key}}`.
 * A retried delivery (`attempt > 0`) first looks for a message with its key in the thread and reuses it,
 * so a post that reached Slack before a crash or timeout is not posted twice. Reactions and edits are
 * idempotent by nature. Errors become NotifierErrors (slack-errors.ts); the outbox owns retries.
 */
import type { SlackCalls } from './slack-calls.js';
import type { KnownBlock } from '@slack/types';
import { isTerminalState } from '../core/ports/agent-runs.js';
import type { Logger } from '../core/ports/logger.js';
import { triggerKeyOfReceivedKey, type OutboxMessage, type RunSnapshot } from '../core/ports/messages.js';
import { NotifierError, unknownMessageKind, type Delivery, type Notifier } from '../core/ports/notifier.js';
import { partsOf } from '../core/outbox/notice-parts.js';
import type { SlackSessions } from './agent-session.js';
import { approvalBlocks } from './approval-blocks.js';
import { announceBlocks, failedBlocks, fallbackText, noticeBlocks, statusBlocks, type StatusAbout, type StatusView } from './blocks.js';
import { RETRYABLE_PLATFORM_ERRORS, isSlackApiError, redactSecrets, slackErrorCode, toNotifierError } from './slack-errors.js';

/** `event_type` of the metadata on every message we post. */
export const METADATA_EVENT_TYPE = 'agent_bridge';

/** A Slack message: where it is. */
export interface SlackMessageRef {
  channel: string;
  ts: string;
}

/** What a delivered `received` row reports: the status message and the request's message. */
export interface ReceivedResult extends SlackMessageRef {
  reference?: SlackMessageRef;
  /** Where a run asked for elsewhere came from: kept so that every edit of the status message shows it. */
  about?: StatusAbout;
}

/** A parsed destination. `threadTs` is absent for a bare channel (`slack:<channel>`). */
export interface SlackDestination {
  channel: string;
  threadTs?: string;
}

/** Parses `slack:<channel>:<thread_ts>` (or `slack:<channel>`); throws a permanent NotifierError otherwise. */
export function parseSlackDestination(destination: string): SlackDestination {
  const match = /^slack:([A-Z0-9]+)(?::(\d+\.\d+))?$/i.exec(destination);
  if (!match?.[1]) {
    throw new NotifierError(`not a Slack destination: ${destination.slice(0, 100)}`, { code: 'bad_destination', retryable: false });
  }
  return match[2] === undefined ? { channel: match[1] } : { channel: match[1], threadTs: match[2] };
}

/** Pages of `conversations.replies` read when looking for an earlier post (200 messages each). */
const LOOKUP_PAGES = 5;
/** Reaction errors that mean "already as wanted". */
const REACTION_NOOPS = new Set(['already_reacted', 'no_reaction']);

/**
 * A status message posted at a bare channel or a person's user id started a thread: `thread` is its
 * place (the channel Slack answered with: a person's DM, not their user id), `triggerKey` the trigger
 * whose "received" message it is.
 */
export interface ThreadStarted {
  thread: string;
  triggerKey: string;
}

/** Delivers outbox rows to Slack through a client that fails at once, without retries of its own (`SlackWebApi`, or a WebClient built with `retryConfig: {retries: 0}`, `rejectRateLimitedCalls: true`). */
export class SlackNotifier implements Notifier {
  readonly platform = 'slack';
  private readonly client: SlackCalls;
  private readonly logger: Logger | undefined;

  private readonly scrub: (text: string) => string;
  private readonly onThreadStarted: ((started: ThreadStarted) => Promise<void>) | undefined;
  private readonly sessions: SlackSessions | undefined;

  /**
   * `onThreadStarted` is told when a status message posted at a bare channel (`/agent <prompt>`)
   * starts a new thread, so replies and the Cancel button in that thread can find the run.
   */
  constructor(options: {
    client: SlackCalls;
    logger?: Logger;
    onThreadStarted?: (started: ThreadStarted) => Promise<void>;
    /** Takes the Slack secrets out of Slack's own error strings before they are logged. */
    scrub?: (text: string) => string;
    /** Runs' agent sessions (`session` rows, and the session change a `status` row carries); absent: skipped. */
    sessions?: SlackSessions;
  }) {
    this.client = options.client;
    this.scrub = options.scrub ?? ((text) => text);
    this.logger = options.logger;
    this.onThreadStarted = options.onThreadStarted;
    this.sessions = options.sessions;
  }

  async deliver(delivery: Delivery): Promise<unknown> {
    const target = parseSlackDestination(delivery.destination);
    const { message } = delivery;
    switch (message.kind) {
      case 'received':
        return this.received(delivery, target, message);
      case 'status':
        // The session change owed with it (a run's start) first, as its own row was delivered before.
        if (message.session) await this.session(delivery, target, { kind: 'session', ...message.session, receivedKey: message.receivedKey });
        return this.status(delivery, target, message);
      case 'stopping':
        return this.status(delivery, target, message);
      case 'announce': {
        const received = await this.receivedOf(delivery, message.receivedKey);
        const posted = await this.post(delivery, threadOf(target, received), announceBlocks(message.run, message.cancelledBy));
        if (isTerminalState(message.run.state)) await this.swapEyes(received?.reference, message.run.state === 'SUCCEEDED' ? 'white_check_mark' : 'x');
        return posted;
      }
      case 'failed': {
        const received = await this.receivedOf(delivery, message.receivedKey);
        const posted = await this.post(delivery, threadOf(target, received), failedBlocks(message.title, message.reason));
        if (received) {
          const view: StatusView = {
            title: message.title,
            stage: { kind: 'start_failed' },
            threadKey: delivery.destination,
            statusText: message.reason,
            ...(received.about && { about: received.about }),
          };
          await this.update(received, statusBlocks(view), fallbackText(message));
        }
        await this.swapEyes(received?.reference, 'x');
        return posted;
      }
      case 'followup_accepted': {
        const reference = asRef(message.reference);
        if (reference) await this.react('reactions.add', reference, 'incoming_envelope');
        return { reacted: reference !== undefined };
      }
      case 'seen':
        // Slack's 👀 comes with the "received" row of a request that starts a run.
        return { skipped: 'no mark of receipt in Slack' };
      case 'session':
        return this.session(delivery, target, message);
      case 'approval':
        return this.approval(delivery, target, message);
      case 'notice': {
        const received = message.receivedKey !== undefined ? await this.receivedOf(delivery, message.receivedKey) : undefined;
        const where = threadOf(target, received);
        if (message.privateTo) return this.ephemeral(where, message.privateTo, fallbackText(message));
        return this.post(delivery, where, noticeBlocks(partsOf(message)));
      }
      default:
        throw unknownMessageKind(message);
    }
  }

  /** 👀 on the request, then the status message in the thread. */
  private async received(delivery: Delivery, target: SlackDestination, message: Extract<OutboxMessage, { kind: 'received' }>): Promise<ReceivedResult> {
    const reference = asRef(message.reference);
    if (reference) await this.react('reactions.add', reference, 'eyes');
    const about: StatusAbout | undefined = message.ticket
      ? { ticket: message.ticket, ...(message.requester !== undefined && { requester: message.requester }) }
      : undefined;
    const view: StatusView = { title: message.title, stage: { kind: 'received' }, threadKey: delivery.destination, ...(about && { about }) };
    const posted = await this.post(delivery, target, statusBlocks(view));
    const triggerKey = triggerKeyOfReceivedKey(delivery.key, delivery.destination);
    if (target.threadTs === undefined && triggerKey !== undefined) await this.onThreadStarted?.({ thread: `slack:${posted.channel}:${posted.ts}`, triggerKey });
    return { ...posted, ...(reference && { reference }), ...(about && { about }) };
  }

  /**
   * Edits the status message: the run's state, or that it is stopping (a stop is shown as an edit, the
   * CANCELLED announcement that follows is the new message). When there is none to edit (the
   * `received` row never got through, or the message was deleted), a replacement is posted once —
   * marked `status_of` the received key, so the next status rows find and edit it instead of posting again.
   */
  private async status(
    delivery: Delivery,
    target: SlackDestination,
    message: Extract<OutboxMessage, { kind: 'status' | 'stopping' }>,
  ): Promise<SlackMessageRef> {
    const text = fallbackText(message);
    const received = await this.receivedOf(delivery, message.receivedKey);
    // At a bare channel the thread is the status message's own: the Cancel button names that thread.
    const threadKey = target.threadTs === undefined && received ? `slack:${received.channel}:${received.ts}` : delivery.destination;
    const view = statusViewOf(message.run, threadKey);
    if (received?.about) view.about = received.about;
    if (message.kind === 'stopping') view.stage = { kind: 'stopping', ...(message.requestedBy !== undefined && { requestedBy: message.requestedBy }) };
    const blocks = statusBlocks(view);
    if (received && (await this.update(received, blocks, text))) return { channel: received.channel, ts: received.ts };
    const thread = threadOf(target, received);
    const earlier = await this.find(thread, (payload) => payload['key'] === message.receivedKey || payload['status_of'] === message.receivedKey);
    if (earlier && (await this.update(earlier, blocks, text))) return earlier;
    return this.post(delivery, thread, blocks, text, { status_of: message.receivedKey }, false);
  }

  /**
   * The run's agent session in its thread (agent-session.ts). At a bare channel (or a person's id) the
   * thread is the status message's own, in the channel Slack posted it to.
   */
  private async session(delivery: Delivery, target: SlackDestination, message: Extract<OutboxMessage, { kind: 'session' }>): Promise<unknown> {
    if (!this.sessions) return { skipped: 'agent sessions off' };
    if (target.threadTs !== undefined) return this.sessions.set({ channel: target.channel, threadTs: target.threadTs }, message);
    const received = await this.receivedOf(delivery, message.receivedKey);
    if (!received) return { skipped: 'no thread yet' };
    return this.sessions.set({ channel: received.channel, threadTs: received.ts }, message);
  }

  /**
   * A request waiting for approval: the question and its buttons where the route asks (in the request's
   * thread there), or in an approver's direct messages with a link to that thread.
   */
  private async approval(delivery: Delivery, target: SlackDestination, message: Extract<OutboxMessage, { kind: 'approval' }>): Promise<unknown> {
    const received = message.receivedKey !== undefined ? await this.receivedOf(delivery, message.receivedKey) : undefined;
    if (message.outcome) {
      // Decided against: the request's status message says so; the thread was told in words by a notice.
      if (!received) return { skipped: 'no status message' };
      const view: StatusView = {
        title: message.title,
        stage: { kind: 'not_approved', outcome: message.outcome },
        threadKey: delivery.destination,
        ...(received.about && { about: received.about }),
      };
      return { edited: await this.update(received, statusBlocks(view), fallbackText(message)) };
    }
    const threadLink = message.thread ? await this.permalinkOf(delivery, message.thread) : undefined;
    const posted = await this.post(delivery, threadOf(target, received), approvalBlocks(message, threadLink));
    // The request's status message says what it waits for (until its run, once approved, edits it).
    if (received) {
      const view: StatusView = {
        title: message.title,
        stage: { kind: 'awaiting_approval' },
        threadKey: delivery.destination,
        ...(received.about && { about: received.about }),
      };
      await this.update(received, statusBlocks(view), fallbackText(message));
    }
    return posted;
  }

  /** A link to a thread (at a bare channel: the one its status message started), or undefined when it cannot be known yet. */
  private async permalinkOf(delivery: Delivery, thread: { place: string; receivedKey?: string }): Promise<string | undefined> {
    const place = parseSlackDestination(thread.place);
    const ts = place.threadTs ?? (thread.receivedKey !== undefined ? (await this.receivedOf(delivery, thread.receivedKey))?.ts : undefined);
    if (ts === undefined) return undefined;
    const answer = await this.call('chat.getPermalink', () => this.client.chat.getPermalink({ channel: place.channel, message_ts: ts }));
    return typeof answer.permalink === 'string' ? answer.permalink : undefined;
  }

  /** Seen only by `user`; Slack keeps no copy, so a re-sent one cannot be found and is simply sent again. */
  private async ephemeral(target: SlackDestination, user: string, text: string): Promise<{ ephemeral: true }> {
    await this.call('chat.postEphemeral', () =>
      this.client.chat.postEphemeral({ channel: target.channel, user, text, ...(target.threadTs !== undefined ? { thread_ts: target.threadTs } : {}) }),
    );
    return { ephemeral: true };
  }

  /** The `received` row's result, read defensively (it is stored JSON). */
  private async receivedOf(delivery: Delivery, key: string): Promise<ReceivedResult | undefined> {
    const raw = await delivery.resultOf(key);
    const result = asRef(raw);
    if (!result) return undefined;
    const reference = asRef((raw as { reference?: unknown }).reference);
    const about = asAbout((raw as { about?: unknown }).about);
    return { ...result, ...(reference && { reference }), ...(about && { about }) };
  }

  /**
   * Posts a new message carrying the delivery key; a retry first reuses a message the thread already
   * has with that key. `lookup` false skips that search (the caller has just searched).
   */
  private async post(
    delivery: Delivery,
    target: SlackDestination,
    blocks: KnownBlock[],
    text = fallbackText(delivery.message),
    extra: Record<string, string> = {},
    lookup = true,
  ): Promise<SlackMessageRef> {
    if (lookup && delivery.attempt > 0) {
      const found = await this.find(target, (payload) => payload['key'] === delivery.key);
      if (found) return found;
    }
    const answer = await this.call('chat.postMessage', () =>
      this.client.chat.postMessage({
        channel: target.channel,
        ...(target.threadTs !== undefined ? { thread_ts: target.threadTs } : {}),
        text,
        blocks,
        metadata: { event_type: METADATA_EVENT_TYPE, event_payload: { key: delivery.key, ...extra } },
        unfurl_links: false,
        unfurl_media: false,
      }),
    );
    if (typeof answer.ts !== 'string') throw new NotifierError('Slack chat.postMessage answered without a ts', { code: 'bad_answer', retryable: true });
    return { channel: typeof answer.channel === 'string' ? answer.channel : target.channel, ts: answer.ts };
  }

  /** Edits a message; resolves false when it is gone (`message_not_found`, `cant_update_message`). */
  private async update(ref: SlackMessageRef, blocks: KnownBlock[], text: string): Promise<boolean> {
    try {
      await this.client.chat.update({ channel: ref.channel, ts: ref.ts, text, blocks });
      return true;
    } catch (error) {
      const code = slackErrorCode(error);
      if (code !== 'message_not_found' && code !== 'cant_update_message') throw mapped(error, 'chat.update');
      this.logger?.info({ channel: ref.channel, ts: ref.ts, code }, 'Slack status message is gone');
      return false;
    }
  }

  /**
   * Looks through the thread (a few pages) for our message whose metadata payload matches; the
   * newest match wins. A bare channel is searched through its recent history instead.
   */
  private async find(target: SlackDestination, matches: (payload: Record<string, unknown>) => boolean): Promise<SlackMessageRef | undefined> {
    let cursor: string | undefined;
    let found: SlackMessageRef | undefined;
    for (let page = 0; page < LOOKUP_PAGES; page++) {
      const base = { channel: target.channel, include_all_metadata: true, limit: 200, ...(cursor ? { cursor } : {}) };
      let answer;
      try {
        answer =
          target.threadTs === undefined
            ? await this.client.conversations.history(base)
            : await this.client.conversations.replies({ ...base, ts: target.threadTs });
      } catch (error) {
        if (slackErrorCode(error) === 'thread_not_found') return undefined;
        throw mapped(error, target.threadTs === undefined ? 'conversations.history' : 'conversations.replies');
      }
      for (const m of answer.messages ?? []) {
        const metadata = m.metadata as { event_type?: unknown; event_payload?: unknown } | undefined;
        const payload = metadata?.event_payload;
        if (metadata?.event_type !== METADATA_EVENT_TYPE || typeof payload !== 'object' || payload === null || typeof m.ts !== 'string') continue;
        if (!matches(payload as Record<string, unknown>)) continue;
        found = { channel: target.channel, ts: m.ts };
        if (target.threadTs === undefined) return found; // history is newest first; replies oldest first
      }
      cursor = answer.response_metadata?.next_cursor;
      if (!answer.has_more || !cursor) break;
    }
    return found;
  }

  /** 👀 → ✅ / ❌ on the request. */
  private async swapEyes(reference: SlackMessageRef | undefined, end: 'white_check_mark' | 'x'): Promise<void> {
    if (!reference) return;
    await this.react('reactions.remove', reference, 'eyes');
    await this.react('reactions.add', reference, end);
  }

  /**
   * Adds or removes a reaction. "Already so" is success. Other permanent errors (the message was
   * deleted, a missing scope) are logged and skipped: a reaction must not hold back the message it
   * accompanies. Retryable errors propagate, and the retry repeats the delivery idempotently.
   */
  private async react(method: 'reactions.add' | 'reactions.remove', ref: SlackMessageRef, name: string): Promise<void> {
    try {
      const args = { channel: ref.channel, timestamp: ref.ts, name };
      await (method === 'reactions.add' ? this.client.reactions.add(args) : this.client.reactions.remove(args));
    } catch (error) {
      const code = slackErrorCode(error);
      if (code !== undefined && REACTION_NOOPS.has(code)) return;
      if (code !== undefined && !RETRYABLE_PLATFORM_ERRORS.has(code)) {
        this.logger?.warn({ channel: ref.channel, ts: ref.ts, name, code: this.scrub(redactSecrets(code)) }, `Slack ${method} failed; reaction skipped`);
        return;
      }
      throw mapped(error, method);
    }
  }

  /** Runs one Web API call, mapping its errors to NotifierErrors. */
  private async call<T>(method: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw mapped(error, method);
    }
  }
}

/** Slack errors as NotifierErrors; anything else (a bug) unchanged, so the outbox reports it as unexpected. */
function mapped(error: unknown, method: string): unknown {
  return isSlackApiError(error) ? toNotifierError(error, method) : error;
}

/** The status message view of a run. */
export function statusViewOf(run: RunSnapshot, threadKey: string): StatusView {
  return {
    title: run.title,
    stage: { kind: 'run', state: run.state },
    threadKey,
    runId: run.runId,
    ...(run.statusText !== undefined ? { statusText: run.statusText } : {}),
    ...(run.sessionLink !== undefined ? { sessionLink: run.sessionLink } : {}),
    ...(run.options !== undefined ? { options: run.options } : {}),
  };
}

/** The thread to post in: the destination's, else (a bare channel) the status message's own thread. */
function threadOf(target: SlackDestination, received: SlackMessageRef | undefined): SlackDestination {
  if (target.threadTs !== undefined || !received) return target;
  return { channel: target.channel, threadTs: received.ts };
}

/** A stored `about` read back defensively: only its string fields. */
function asAbout(value: unknown): StatusAbout | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { ticket, requester } = value as { ticket?: { ref?: unknown; url?: unknown; from?: unknown }; requester?: unknown };
  if (typeof ticket !== 'object' || ticket === null) return undefined;
  return {
    ticket: {
      ...(typeof ticket.ref === 'string' && { ref: ticket.ref }),
      ...(typeof ticket.url === 'string' && { url: ticket.url }),
      ...(typeof ticket.from === 'string' && { from: ticket.from }),
    },
    ...(typeof requester === 'string' && { requester }),
  };
}

/** `{channel, ts}` when `value` has both as non-empty strings. */
function asRef(value: unknown): SlackMessageRef | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { channel, ts } = value as { channel?: unknown; ts?: unknown };
  return typeof channel === 'string' && channel !== '' && typeof ts === 'string' && ts !== '' ? { channel, ts } : undefined;
}
