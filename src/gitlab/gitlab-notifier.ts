/**
 * The notifier for GitLab places (`gitlab:<group/project>#<iid>`): a start note when a request is
 * received, edited in place at every observed state; one new note per BLOCKED and end state, per
 * failure and per notice; `eyes` and `rocket` award emoji on a note whose request reached the run.
 *
 * Exactly once: GitLab takes no idempotency key for a note, so every note carries its outbox key in a
 * hidden HTML comment (`<!-- agent-bridge:KEY -->`), and a retried delivery looks for it among our own
 * notes before posting again. An award GitLab says we gave already counts as given.
 */
import type { Logger } from '../core/ports/logger.js';
import { NotifierError, unknownMessageKind, type Delivery, type Notifier } from '../core/ports/notifier.js';
import { messageComment, receivedComment, startFailedComment, statusComment, stoppingComment } from '../surface-kit/markdown-comments.js';
import { withPeopleInWords, type DescribePeople } from '../surface-kit/people-in-words.js';
import { gitlabError, GitlabCallError, type GitlabApi, type NoteableKind } from './gitlab-api.js';
import { parseGitlabPlace } from './places.js';

type Place = { project: string; kind: NoteableKind; iid: number };

/** The hidden line that makes a note findable by its outbox key (people do not see HTML comments). */
export function keyMarker(key: string): string {
  return `<!-- agent-bridge:${key.replace(/--/g, '- -')} -->`;
}

/** What a delivered `received` row reports: the start note. */
export interface StartNote {
  noteId: number;
}

export interface GitlabNotifierOptions {
  api: GitlabApi;
  /** Our token's user id: only our notes are looked through for a key. */
  selfId: number;
  /** `gitlab.handle`, named in what we write ("answer with a note starting with …"). */
  handle: string;
  people: DescribePeople;
  logger?: Logger;
}

export class GitlabNotifier implements Notifier {
  readonly platform = 'gitlab';

  constructor(private readonly options: GitlabNotifierOptions) {}

  async deliver(delivery: Delivery): Promise<unknown> {
    const place = parseGitlabPlace(delivery.destination);
    if (!place) throw new NotifierError(`not a GitLab place: ${delivery.destination.slice(0, 100)}`, { code: 'bad_destination', retryable: false });
    const message = withPeopleInWords(delivery.message, this.options.people);
    try {
      switch (message.kind) {
        case 'received': {
          const noteId = await this.note(delivery, place, receivedComment(message.title, message.requester));
          await this.award(delivery, place, message.reference, 'eyes');
          return { noteId } satisfies StartNote;
        }
        case 'status':
          return await this.editStart(delivery, place, message.receivedKey, statusComment(message.run));
        case 'stopping':
          return await this.editStart(delivery, place, message.receivedKey, stoppingComment(message.run, message.requestedBy));
        case 'failed':
          await this.editStart(delivery, place, message.receivedKey, startFailedComment(message.title, message.reason));
          return { noteId: await this.note(delivery, place, messageComment(message, this.options.handle)) };
        case 'announce':
        case 'notice':
          return { noteId: await this.note(delivery, place, messageComment(message, this.options.handle)) };
        case 'seen':
          return { awarded: await this.award(delivery, place, message.reference, 'eyes') };
        case 'followup_accepted':
          return { awarded: await this.award(delivery, place, message.reference, 'rocket') };
        case 'session':
          return { skipped: 'no session here' };
        case 'approval':
          return { skipped: 'approvals are asked in the route’s companion chat place' };
        default:
          throw unknownMessageKind(message);
      }
    } catch (error) {
      if (error instanceof NotifierError) throw error;
      throw gitlabError(error, `deliver a ${message.kind} message`);
    }
  }

  /** Awards `name` on the referenced note once; false when there is none or it is gone (deleted since). */
  private async award(delivery: Delivery, place: Place, reference: unknown, name: 'eyes' | 'rocket'): Promise<boolean> {
    const note = (reference as { note?: unknown } | undefined)?.note;
    if (typeof note !== 'number') return false;
    try {
      // An earlier attempt may have awarded it before a crash; GitLab's 404 for a second award is also its 404 for a gone note.
      if (delivery.attempt > 0 && (await this.options.api.hasAward(place.project, place.kind, place.iid, note, name, this.options.selfId))) return true;
      await this.options.api.award(place.project, place.kind, place.iid, note, name);
      return true;
    } catch (error) {
      if (error instanceof GitlabCallError && error.status === 404) return false;
      throw error;
    }
  }

  /** Posts a note carrying `key`, unless an earlier attempt already did (then that one's id). */
  private async note(delivery: Delivery, place: Place, body: string, key = delivery.key): Promise<number> {
    const marker = keyMarker(key);
    if (delivery.attempt > 0) {
      const found = await this.options.api.findNote(place.project, place.kind, place.iid, marker, this.options.selfId);
      if (found !== undefined) return found;
    }
    return (await this.options.api.createNote(place.project, place.kind, place.iid, `${defuseMentions(body, this.options.handle)}\n\n${marker}`)).id;
  }

  /** Edits the start note; a place with none (its start row failed for good) gets one status note, found and edited by later states. */
  private async editStart(delivery: Delivery, place: Place, receivedKey: string, body: string): Promise<StartNote> {
    const received = (await delivery.resultOf(receivedKey)) as Partial<StartNote> | undefined;
    const text = defuseMentions(body, this.options.handle);
    if (typeof received?.noteId === 'number') {
      await this.options.api.editNote(place.project, place.kind, place.iid, received.noteId, `${text}\n\n${keyMarker(receivedKey)}`);
      return { noteId: received.noteId };
    }
    const replacementKey = `status_of:${receivedKey}`;
    const found = await this.options.api.findNote(place.project, place.kind, place.iid, keyMarker(replacementKey), this.options.selfId);
    if (found !== undefined) {
      await this.options.api.editNote(place.project, place.kind, place.iid, found, `${text}\n\n${keyMarker(replacementKey)}`);
      return { noteId: found };
    }
    return { noteId: await this.note({ ...delivery, attempt: 0 }, place, body, replacementKey) };
  }
}

/**
 * Foreign text must not notify people or groups on GitLab: `@name` gets a word joiner after the `@`
 * (it reads the same and mentions no one), except our own handle, which the BLOCKED hint names. A
 * link we built (`](<url>)`, `<url>`) is left whole.
 */
export function defuseMentions(text: string, handle: string): string {
  const ours = handle.startsWith('@') ? handle.slice(1) : undefined;
  return text.replace(
    /(\]\(<[^<>\s]*>\)|<https?:\/\/[^<>\s]*>)|(^|[^\w`\\])@(?=[A-Za-z0-9_])([\w.-]*)/g,
    (all, link: string | undefined, before: string, name: string) => (link !== undefined || name === ours ? all : `${before}@\u2060${name}`),
  );
}
