/**
 * The notifier for `jira:<ISSUE-KEY>` places: a start comment when a trigger is
 * received, edited in place at every observed state and when a stop is asked for; one new comment per
 * BLOCKED and end state, per failure and per notice; `jira.states` transitions as the run's states are
 * shown. Jira has no reactions through REST: a follow-up that reached the run shows in the start
 * comment's next edit instead.
 *
 * Exactly once: Jira takes no client-chosen comment id, so every comment we create carries the hash of
 * its outbox key in its `agent-bridge` property; a retried delivery (attempt > 0) looks for that mark
 * among the issue's latest comments before creating, so a create that reached Jira before a crash or a
 * lost answer is not made twice.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../core/ports/logger.js';
import { NotifierError, unknownMessageKind, type Delivery, type Notifier } from '../core/ports/notifier.js';
import type { AdfDoc } from './adf.js';
import { withPeopleInWords, type DescribePeople } from '../surface-kit/people-in-words.js';
import { messageDoc, receivedDoc, startFailedDoc, statusDoc, stoppingDoc } from './comment-text.js';
import type { JiraApi } from './jira-api.js';
import { toJiraNotifierError } from './jira-errors.js';
import type { JiraTransitions } from './transitions.js';

const ISSUE_KEY = /^[A-Za-z][A-Za-z0-9_]*-\d+$/;

/** Parses `jira:<ISSUE-KEY>` into the key; throws a permanent NotifierError otherwise. */
export function parseJiraDestination(destination: string): string {
  const key = destination.startsWith('jira:') ? destination.slice('jira:'.length) : '';
  if (!ISSUE_KEY.test(key)) throw new NotifierError(`not a Jira destination: ${destination.slice(0, 100)}`, { code: 'bad_destination', retryable: false });
  return key;
}

/** The mark of the comment created for an outbox key (its `agent-bridge` property): the same key, the same mark. */
export function markFor(key: string): string {
  return createHash('sha256').update(`agent-bridge:${key}`).digest('hex').slice(0, 32);
}

/** What a delivered `received` row reports: the start comment and its issue. */
export interface StartComment {
  commentId: string;
  issueKey: string;
}

export interface JiraNotifierOptions {
  api: JiraApi;
  /** How a comment addresses the bot, for "answer with a comment starting with …". */
  handle: string;
  /** How people named by a mention token (`<@personId>`) are written in a comment: in words, since the markup means nothing here. */
  people: DescribePeople;
  transitions?: JiraTransitions;
  logger?: Logger;
}

export class JiraNotifier implements Notifier {
  readonly platform = 'jira';

  constructor(private readonly options: JiraNotifierOptions) {}

  async deliver(delivery: Delivery): Promise<unknown> {
    const issueKey = parseJiraDestination(delivery.destination);
    const message = withPeopleInWords(delivery.message, this.options.people);
    const transitions = this.options.transitions;
    try {
      switch (message.kind) {
        case 'received': {
          const commentId = await this.comment(delivery, issueKey, receivedDoc(message.title, message.requester));
          return { commentId, issueKey } satisfies StartComment;
        }
        case 'status': {
          const edited = await this.editStart(delivery, issueKey, message.receivedKey, statusDoc(message.run));
          if (transitions?.enabled) await transitions.onRun(message.run, issueKey);
          return edited;
        }
        case 'stopping':
          return await this.editStart(delivery, issueKey, message.receivedKey, stoppingDoc(message.run, message.requestedBy));
        case 'failed':
          await this.editStart(delivery, issueKey, message.receivedKey, startFailedDoc(message.title, message.reason));
          return { commentId: await this.comment(delivery, issueKey, messageDoc(message, this.options.handle)) };
        case 'announce':
          if (transitions?.enabled) await transitions.onRun(message.run, issueKey);
          return { commentId: await this.comment(delivery, issueKey, messageDoc(message, this.options.handle)) };
        case 'notice':
          return { commentId: await this.comment(delivery, issueKey, messageDoc(message, this.options.handle)) };
        case 'followup_accepted':
        case 'seen':
          return { skipped: 'Jira comments take no reactions' };
        case 'session':
          return { skipped: 'no session here' };
        case 'approval':
          // Approvals are asked in the route's companion chat place, where approvers can press a button; the issue hears of it by a notice.
          return { skipped: 'approvals are asked in the route’s companion chat place' };
        default:
          throw unknownMessageKind(message);
      }
    } catch (error) {
      throw toJiraNotifierError(error, message.kind);
    }
  }

  /** Creates a comment marked with this delivery's key, unless an earlier attempt already did. */
  private async comment(delivery: Delivery, issueKey: string, body: AdfDoc, key = delivery.key): Promise<string> {
    const mark = markFor(key);
    if (delivery.attempt > 0) {
      const existing = await this.options.api.findMarkedComment(issueKey, mark);
      if (existing) return existing;
    }
    return this.options.api.createComment(issueKey, body, mark);
  }

  /**
   * Edits the start comment. When there is none (its row failed for good), a replacement is created
   * once under a mark derived from the received key, and later edits find it there.
   */
  private async editStart(delivery: Delivery, issueKey: string, receivedKey: string, body: AdfDoc): Promise<{ commentId: string }> {
    const received = (await delivery.resultOf(receivedKey)) as Partial<StartComment> | undefined;
    if (received?.commentId) {
      await this.options.api.updateComment(received.issueKey ?? issueKey, received.commentId, body);
      return { commentId: received.commentId };
    }
    const replacementKey = `status_of:${receivedKey}`;
    const existing = await this.options.api.findMarkedComment(issueKey, markFor(replacementKey));
    if (existing) {
      await this.options.api.updateComment(issueKey, existing, body);
      return { commentId: existing };
    }
    return { commentId: await this.options.api.createComment(issueKey, body, markFor(replacementKey)) };
  }
}
