/**
 * The notifier for `linear:<IDENTIFIER>` destinations (design.md §5): a start comment when a trigger
 * is received, edited in place at every observed state; one new comment per BLOCKED and end state,
 * per failure and per notice; ✉️ on a comment whose follow-up reached the run.
 *
 * Exactly once: every comment and reaction is created under an id derived from its outbox key
 * (`OwnIds`), so a create that reached Linear before a crash or timeout cannot be created twice; a
 * retried delivery looks for its id first. The same ids let the webhook of our own comment — which
 * carries the API user and no `botActor` when we use a personal API key — be recognised and ignored.
 */
import type { Logger } from '../core/logger.js';
import type { OutboxMessage } from '../core/messages.js';
import { NotifierError, type Delivery, type Notifier } from '../core/notifier.js';
import { messageComment, receivedComment, startFailedComment, statusComment } from './comment-text.js';
import type { LinearApi } from './linear-api.js';
import type { OwnIds } from './own-ids.js';
import type { WorkflowMover } from './workflow-states.js';
import { isInvalidInput, toLinearNotifierError } from './linear-errors.js';

/** Parses `linear:<IDENTIFIER>`; throws a permanent NotifierError otherwise. */
export function parseLinearDestination(destination: string): string {
  const match = /^linear:([A-Za-z0-9]+-\d+)$/.exec(destination);
  if (!match?.[1]) throw new NotifierError(`not a Linear destination: ${destination.slice(0, 100)}`, { code: 'bad_destination', retryable: false });
  return match[1];
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
  /** The ids of what we create. */
  ids: OwnIds;
  /** `linear.states` moves, applied as the run's states are shown. */
  workflow?: WorkflowMover;
  logger?: Logger;
}

export class LinearNotifier implements Notifier {
  readonly platform = 'linear';
  /** Identifier → issue UUID; identifiers change only when an issue moves team, and then the lookup fails loudly. */
  private readonly issueIds = new Map<string, string>();

  constructor(private readonly options: LinearNotifierOptions) {}

  async deliver(delivery: Delivery): Promise<unknown> {
    const identifier = parseLinearDestination(delivery.destination);
    const { message } = delivery;
    try {
      switch (message.kind) {
        case 'received': {
          const issueId = referencedIssueId(message.reference) ?? (await this.issueId(identifier));
          const commentId = await this.comment(delivery, issueId, receivedComment(message.title, message.requester));
          return { commentId, issueId } satisfies StartComment;
        }
        case 'status': {
          const edited = await this.editStart(delivery, identifier, message.receivedKey, statusComment(message.run));
          if (this.options.workflow?.enabled) await this.options.workflow.onRun(message.run, identifier);
          return edited;
        }
        case 'failed': {
          await this.editStart(delivery, identifier, message.receivedKey, startFailedComment(message.title, message.reason));
          return { commentId: await this.comment(delivery, await this.issueId(identifier), messageComment(message, this.options.handle)) };
        }
        case 'announce':
          if (this.options.workflow?.enabled) await this.options.workflow.onRun(message.run, identifier);
          return { commentId: await this.comment(delivery, await this.issueId(identifier), messageComment(message, this.options.handle)) };
        case 'notice':
          return { commentId: await this.comment(delivery, await this.issueId(identifier), messageComment(message, this.options.handle)) };
        case 'followup_accepted':
          return await this.react(delivery, message);
        default: {
          const unknown: never = message;
          const kind = String((unknown as { kind?: unknown }).kind).slice(0, 40);
          throw new NotifierError(`unknown message kind ${kind}`, { code: 'unknown_kind', retryable: false });
        }
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
  private async editStart(delivery: Delivery, identifier: string, receivedKey: string, body: string): Promise<{ commentId: string }> {
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
    return { commentId: await this.comment({ ...delivery, attempt: 0 }, await this.issueId(identifier), body, replacementKey) };
  }

  private async react(delivery: Delivery, message: Extract<OutboxMessage, { kind: 'followup_accepted' }>): Promise<unknown> {
    const commentId = (message.reference as { commentId?: unknown } | undefined)?.commentId;
    if (typeof commentId !== 'string') return { reacted: false };
    try {
      await this.options.api.react({ id: this.options.ids.idFor(delivery.key), commentId, emoji: 'incoming_envelope' });
    } catch (error) {
      // The comment was deleted, or an earlier attempt already reacted: either way nothing is owed.
      if (isInvalidInput(error)) return { reacted: false };
      throw error;
    }
    return { reacted: true };
  }

  private async issueId(identifier: string): Promise<string> {
    const known = this.issueIds.get(identifier);
    if (known) return known;
    const issue = await this.options.api.issue(identifier, 0);
    this.issueIds.set(identifier, issue.id);
    return issue.id;
  }
}

function referencedIssueId(reference: unknown): string | undefined {
  const issueId = (reference as { issueId?: unknown } | undefined)?.issueId;
  return typeof issueId === 'string' && issueId !== '' ? issueId : undefined;
}
