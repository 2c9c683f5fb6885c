/**
 * The notifier for `github:<owner>/<repo>#<n>` places: a start comment when a request is
 * received, edited in place at every observed state; one new comment per BLOCKED and end state, per
 * failure and per notice; `eyes` and `rocket` on a comment whose follow-up reached the run. A place the
 * run joined later (its pull request) gets one status comment, edited in the same way.
 *
 * Exactly once: GitHub takes no idempotency key, so every comment carries its outbox key in a hidden
 * HTML comment (`<!-- agent-bridge:KEY -->`), and a retried delivery looks for it on the issue before
 * posting again. Reactions are idempotent on GitHub's side (the same one twice is answered 200).
 */
import type { Logger } from '../core/ports/logger.js';
import type { OutboxMessage } from '../core/ports/messages.js';
import { NotifierError, unknownMessageKind, type Delivery, type Notifier } from '../core/ports/notifier.js';
import { messageComment, receivedComment, startFailedComment, statusComment, stoppingComment } from '../surface-kit/markdown-comments.js';
import { withPeopleInWords, type DescribePeople } from '../surface-kit/people-in-words.js';
import { githubError, type GithubApi, type ReactionTarget } from './github-api.js';
import type { GithubReference } from './acts.js';

const PLACE = /^github:([A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100})#(\d{1,10})$/;

/** `github:<owner>/<repo>#<n>` as its repository and number; a permanent NotifierError otherwise. */
export function parseGithubPlace(destination: string): { repo: string; number: number } {
  const match = PLACE.exec(destination);
  if (!match) throw new NotifierError(`not a GitHub place: ${destination.slice(0, 100)}`, { code: 'bad_destination', retryable: false });
  return { repo: match[1]!.toLowerCase(), number: Number(match[2]) };
}

/** The hidden line that makes a comment findable by its outbox key (people do not see HTML comments). */
export function keyMarker(key: string): string {
  return `<!-- agent-bridge:${key.replace(/--/g, '- -')} -->`;
}

/** What a delivered `received` row reports: the start comment. */
export interface StartComment {
  commentId: number;
}

export interface GithubNotifierOptions {
  api: GithubApi;
  /** `github.handle`: how a comment addresses the bot ("answer with a comment starting with …"). */
  handle: string;
  /** How people named by a mention token (`<@personId>`) are written in a comment: in words, since the markup means nothing here. */
  people: DescribePeople;
  logger?: Logger;
}

/** How many status comments of places without a start comment are remembered (each saves a read per state). */
const REMEMBERED_STATUS_COMMENTS = 1_000;

export class GithubNotifier implements Notifier {
  readonly platform = 'github';
  /** `status_of:<received key>` → the status comment posted for it (found again on GitHub when forgotten). */
  private readonly statusComments = new Map<string, number>();

  constructor(private readonly options: GithubNotifierOptions) {}

  async deliver(delivery: Delivery): Promise<unknown> {
    const place = parseGithubPlace(delivery.destination);
    const message = withPeopleInWords(delivery.message, this.options.people);
    try {
      switch (message.kind) {
        case 'received': {
          const commentId = await this.comment(delivery, place, receivedComment(message.title, message.requester));
          const target = reactionTarget(message.reference);
          if (target) await this.react(place.repo, target, 'eyes');
          return { commentId } satisfies StartComment;
        }
        case 'status':
          return await this.editStart(delivery, place, message.receivedKey, statusComment(message.run));
        case 'stopping':
          return await this.editStart(delivery, place, message.receivedKey, stoppingComment(message.run, message.requestedBy));
        case 'failed':
          await this.editStart(delivery, place, message.receivedKey, startFailedComment(message.title, message.reason));
          return { commentId: await this.comment(delivery, place, this.text(message)) };
        case 'announce':
        case 'notice':
          return { commentId: await this.comment(delivery, place, this.text(message)) };
        case 'seen': {
          // 👀 on receipt (owed with the trigger by the edge), before the run API is asked anything.
          const target = reactionTarget(message.reference);
          return { reacted: target !== undefined && (await this.react(place.repo, target, 'eyes')) };
        }
        case 'followup_accepted': {
          // 🚀 once the run API took it.
          const target = reactionTarget(message.reference);
          return { reacted: target !== undefined && (await this.react(place.repo, target, 'rocket')) };
        }
        case 'session':
          return { skipped: 'no session here' };
        case 'approval':
          // Approvals are asked in the route's companion chat place, where approvers can press a button; the issue hears of it by a notice.
          return { skipped: 'approvals are asked in the route’s companion chat place' };
        default:
          throw unknownMessageKind(message);
      }
    } catch (error) {
      if (error instanceof NotifierError) throw error;
      throw githubError(error, `deliver a ${message.kind} message`);
    }
  }

  /** Reacts; false when the comment is gone (deleted since), which owes nothing more. */
  private async react(repo: string, target: ReactionTarget, content: 'eyes' | 'rocket'): Promise<boolean> {
    try {
      await this.options.api.react(repo, target, content);
      return true;
    } catch (error) {
      const status = (error as { status?: unknown } | null)?.status;
      if (status === 404 || status === 410 || status === 422) return false;
      throw error;
    }
  }

  private text(message: OutboxMessage): string {
    return messageComment(message, this.options.handle);
  }

  /** Posts a comment carrying `key`, unless an earlier attempt already did (then that one's id). */
  private async comment(delivery: Delivery, place: { repo: string; number: number }, body: string, key = delivery.key): Promise<number> {
    const marker = keyMarker(key);
    if (delivery.attempt > 0) {
      const found = await this.options.api.findComment(place.repo, place.number, marker);
      if (found !== undefined) return found;
    }
    const created = await this.options.api.createComment(place.repo, place.number, `${defuseMentions(body, this.options.handle)}\n\n${marker}`);
    return created.id;
  }

  /**
   * Edits the start comment. A place with none (a pull request the run joined, or a start whose row
   * failed for good) gets one status comment under the key `status_of:<received key>`, found and
   * edited by later states.
   */
  private async editStart(delivery: Delivery, place: { repo: string; number: number }, receivedKey: string, body: string): Promise<StartComment> {
    const received = (await delivery.resultOf(receivedKey)) as Partial<StartComment> | undefined;
    const text = defuseMentions(body, this.options.handle);
    if (typeof received?.commentId === 'number') {
      await this.options.api.updateComment(place.repo, received.commentId, `${text}\n\n${keyMarker(receivedKey)}`);
      return { commentId: received.commentId };
    }
    const replacementKey = `status_of:${receivedKey}`;
    const found = this.statusComments.get(replacementKey) ?? (await this.options.api.findComment(place.repo, place.number, keyMarker(replacementKey)));
    let commentId: number;
    if (found !== undefined) {
      await this.options.api.updateComment(place.repo, found, `${text}\n\n${keyMarker(replacementKey)}`);
      commentId = found;
    } else {
      commentId = await this.comment({ ...delivery, attempt: 0 }, place, body, replacementKey);
    }
    if (this.statusComments.size >= REMEMBERED_STATUS_COMMENTS) this.statusComments.delete(this.statusComments.keys().next().value ?? '');
    this.statusComments.set(replacementKey, commentId);
    return { commentId };
  }
}

/** What the request's reference says to react to; a review has no reaction in GitHub's REST API. */
function reactionTarget(reference: unknown): ReactionTarget | undefined {
  const ref = (reference ?? {}) as Partial<GithubReference>;
  if (typeof ref.comment === 'number') return { comment: ref.comment };
  if (typeof ref.reviewComment === 'number') return { reviewComment: ref.reviewComment };
  return undefined;
}

/**
 * Foreign text must not notify people or teams on GitHub: `@name` gets a word joiner after the `@`
 * (it reads the same and mentions no one), except our own handle, which the BLOCKED hint names. The
 * URL of a link we built (`](<url>)`, `<url>`) is left whole: a word joiner there would break it, and
 * foreign text cannot contain either form (markdown.ts escapes its brackets and breaks its schemes).
 */
export function defuseMentions(text: string, handle: string): string {
  const ours = handle.startsWith('@') ? handle.slice(1) : undefined;
  return text.replace(
    /(\]\(<[^<>\s]*>\)|<https?:\/\/[^<>\s]*>)|(^|[^\w`\\])@(?=[A-Za-z0-9])([\w-]*)/g,
    (all, link: string | undefined, before: string, name: string) => (link !== undefined || name === ours ? all : `${before}@\u2060${name}`),
  );
}
