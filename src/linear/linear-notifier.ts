/**
 * The notifier for `linear:<issue id>` destinations (and `linear:<IDENTIFIER>`, which schedules and
 * rows from before issue-id anchors use) (docs/architecture.md §6): a start comment when a trigger is received,
 * edited in place at every observed state and when a stop is asked for; one new comment per BLOCKED
 * and end state, per failure and per notice; ✉️ on a comment whose follow-up reached the run, 🛑 on
 * a comment that asked to stop it.
 *
 * Exactly once: every comment and reaction is created under an id derived from its outbox key
 * (`OwnIds`), so a create that reached Linear before a crash or timeout cannot be created twice; a
 * retried delivery looks for its id first. The same ids let the webhook of our own comment — which
 * carries the API user and no `botActor` when we use a personal API key — be recognised and ignored.
 */
import type { Logger } from '../core/ports/logger.js';
import { NotifierError, unknownMessageKind, type Delivery, type Notifier } from '../core/ports/notifier.js';
import { messageComment, receivedComment, startFailedComment, statusComment, stoppingComment } from '../surface-kit/markdown-comments.js';
import { withPeopleInWords, type DescribePeople } from '../surface-kit/people-in-words.js';
import type { LinearApi } from './linear-api.js';
import type { OwnIds } from './own-ids.js';
import type { WorkflowMover } from './workflow-states.js';
import { isInvalidInput, toLinearNotifierError } from './linear-errors.js';

/** A Linear issue id: UUID-shaped (8-4-4-4-12). */
const ISSUE_ID = /^[A-Za-z0-9]{8}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{12}$/;
/** A Linear issue identifier: team key and number. */
const IDENTIFIER = /^[A-Za-z0-9]+-\d+$/;

/** Parses `linear:<issue id>` or `linear:<IDENTIFIER>` into the id or identifier; throws a permanent NotifierError otherwise. */
export function parseLinearDestination(destination: string): string {
  const issue = destination.startsWith('linear:') ? destination.slice('linear:'.length) : '';
  if (!ISSUE_ID.test(issue) && !IDENTIFIER.test(issue)) {
    throw new NotifierError(`not a Linear destination: ${destination.slice(0, 100)}`, { code: 'bad_destination', retryable: false });
  }
  return issue;
}

/** What a delivered `received` row reports: the start comment and the issue it is on. */
export interface StartComment {
  commentId: string;
  issueId: string;
}

export interface LinearNotifierOptions {
  api: LinearApi;
  /** How a comment addresses the bot, for "answer with a comment starting with …". */
  handle: string;
  /** How people named by a mention token (`<@personId>`) are written in a comment: in words, since the markup means nothing here. */
  people: DescribePeople;
  /** The ids of what we create. */
  ids: OwnIds;
  /** `linear.states` moves, applied as the run's states are shown. */
  workflow?: WorkflowMover;
  logger?: Logger;
}

export class LinearNotifier implements Notifier {
  readonly platform = 'linear';
  /** Identifier → issue id, for identifier destinations (an identifier changes when its issue moves team; ids never do). */
  private readonly issueIds = new Map<string, string>();

  constructor(private readonly options: LinearNotifierOptions) {}

  async deliver(delivery: Delivery): Promise<unknown> {
    // The issue's id, or (schedule and older destinations) its identifier: Linear accepts either.
    const issue = parseLinearDestination(delivery.destination);
    const message = withPeopleInWords(delivery.message, this.options.people);
    try {
      switch (message.kind) {
        case 'received': {
          const issueId = referencedIssueId(message.reference) ?? (await this.issueId(issue));
          const commentId = await this.comment(delivery, issueId, receivedComment(message.title, message.requester));
          return { commentId, issueId } satisfies StartComment;
        }
        case 'status': {
          const edited = await this.editStart(delivery, issue, message.receivedKey, statusComment(message.run));
          if (this.options.workflow?.enabled) await this.options.workflow.onRun(message.run, issue);
          return edited;
        }
        case 'stopping': {
          const edited = await this.editStart(delivery, issue, message.receivedKey, stoppingComment(message.run, message.requestedBy));
          const commentId = (message.reference as { commentId?: unknown } | undefined)?.commentId;
          const reacted = typeof commentId === 'string' && (await this.react(delivery, commentId, 'octagonal_sign'));
          return { ...edited, reacted };
        }
        case 'failed': {
          await this.editStart(delivery, issue, message.receivedKey, startFailedComment(message.title, message.reason));
          return { commentId: await this.comment(delivery, await this.issueId(issue), messageComment(message, this.options.handle)) };
        }
        case 'announce':
          if (this.options.workflow?.enabled) await this.options.workflow.onRun(message.run, issue);
          return { commentId: await this.comment(delivery, await this.issueId(issue), messageComment(message, this.options.handle)) };
        case 'notice':
          return { commentId: await this.comment(delivery, await this.issueId(issue), messageComment(message, this.options.handle)) };
        case 'approval':
          // Approvals are asked in the route's companion chat place, where approvers can press a button; the issue hears of it by a notice.
          return { skipped: 'approvals are asked in the route’s companion chat place' };
        case 'seen':
          return { skipped: 'Linear marks a request when its run answers, not on receipt' };
        case 'followup_accepted': {
          const commentId = (message.reference as { commentId?: unknown } | undefined)?.commentId;
          return { reacted: typeof commentId === 'string' && (await this.react(delivery, commentId, 'incoming_envelope')) };
        }
        case 'session':
          // An issue has no live session to show (Linear's own agent sessions are `linear-session:` places).
          return { skipped: 'no session here' };
        default:
          throw unknownMessageKind(message);
      }
    } catch (error) {
      throw toLinearNotifierError(error, message.kind);
    }
  }

  /** Creates a comment under the id of this delivery's key, unless an earlier attempt already did. */
  private async comment(delivery: Delivery, issueId: string, body: string, key = delivery.key): Promise<string> {
    const id = this.options.ids.idFor(key);
    if (delivery.attempt > 0 && (await this.options.api.commentExists(id))) return id;
    await this.options.api.createComment({ id, issueId, body });
    return id;
  }

  /**
   * Edits the start comment. When there is none (its row failed for good), a replacement is created
   * once under an id derived from the received key, and later edits find it there.
   */
  private async editStart(delivery: Delivery, issue: string, receivedKey: string, body: string): Promise<{ commentId: string }> {
    const received = (await delivery.resultOf(receivedKey)) as Partial<StartComment> | undefined;
    if (received?.commentId) {
      await this.options.api.updateComment(received.commentId, body);
      return { commentId: received.commentId };
    }
    const replacementKey = `status_of:${receivedKey}`;
    const replacement = this.options.ids.idFor(replacementKey);
    if (await this.options.api.commentExists(replacement)) {
      await this.options.api.updateComment(replacement, body);
      return { commentId: replacement };
    }
    return { commentId: await this.comment({ ...delivery, attempt: 0 }, await this.issueId(issue), body, replacementKey) };
  }

  /** Reacts to a person's comment under the id of this delivery's key; false when nothing is owed. */
  private async react(delivery: Delivery, commentId: string, emoji: string): Promise<boolean> {
    try {
      await this.options.api.react({ id: this.options.ids.idFor(delivery.key), commentId, emoji });
    } catch (error) {
      // The comment was deleted, or an earlier attempt already reacted: either way nothing is owed.
      if (isInvalidInput(error)) return false;
      throw error;
    }
    return true;
  }

  /** The issue's id: the destination's own, or looked up (once) for an identifier. */
  private async issueId(issue: string): Promise<string> {
    if (ISSUE_ID.test(issue)) return issue;
    const known = this.issueIds.get(issue);
    if (known) return known;
    const found = await this.options.api.issue(issue, 0);
    this.issueIds.set(issue, found.id);
    return found.id;
  }
}

function referencedIssueId(reference: unknown): string | undefined {
  const issueId = (reference as { issueId?: unknown } | undefined)?.issueId;
  return typeof issueId === 'string' && issueId !== '' ? issueId : undefined;
}
