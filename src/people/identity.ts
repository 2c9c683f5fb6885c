/**
 * Who a requester is as a person who may own a personal API key. A person is a chat surface's user
 * (its person id, `surface-kit/person-ids.ts`: the key page and the chat's connect command store keys
 * under it), so a requester of any chat surface whose users are people is that person directly. A
 * user of any other surface (Linear, GitHub, Jira) is a person through a link, one table for every
 * surface: one an admin made on the console, or one found by the same verified email on both sides
 * (that surface's email of the user, then each chat surface that is on, in the list's order, asked for
 * a user with that confirmed email), kept in `person_links` so it is looked up once. Lookups happen in
 * the intake worker, never in a webhook handler; a failed lookup is "no person" (the service key),
 * logged at debug or warn.
 */
import type { Clock } from '../core/ports/clock.js';
import type { PersonIdentity } from '../core/ports/identity.js';
import type { Logger } from '../core/ports/logger.js';
import type { PersonLinkRepository } from '../core/ports/store.js';
import type { Requester } from '../core/ports/triggers.js';
import type { PersonIds } from '../surface-kit/person-ids.js';

/** A chat surface whose people can be found by email. */
export interface PeopleByEmail {
  /** The chat surface's name. */
  surface: string;
  /** Its user with this confirmed email (an active human), else undefined. Throws on failure; an error may carry a `hint` saying how to fix it. */
  userByEmail(email: string): Promise<string | undefined>;
}

/** The lookups by email, each absent when its surface is off. All throw on failure; undefined = not found. */
export interface EmailDirectory {
  /**
   * By surface name: a user's email as that surface knows it — only surfaces whose emails are verified
   * (Linear accounts sign in with theirs; Jira shows one only when the user allows it).
   */
  emailOf?: Readonly<Record<string, (userId: string) => Promise<string | undefined>>>;
  /** The chat surfaces that are on, in the order they are asked: the first to know the email names the person. */
  peopleByEmail?: readonly PeopleByEmail[];
}

export interface IdentityOptions {
  /** How the chat surfaces' users are written as people: a requester of one of them is that person. */
  people: Pick<PersonIds, 'of'>;
  links: PersonLinkRepository;
  directory: EmailDirectory;
  clock: Pick<Clock, 'now'>;
  logger: Logger;
  /**
   * How long "this user has no match on any chat surface" is remembered in memory (default 10
   * minutes), so a person who comments a lot costs two lookups per interval, not per comment.
   * Failures are not remembered.
   */
  missTtlMs?: number;
}

const DEFAULT_MISS_TTL_MS = 10 * 60_000;

/** A chat surface's requesters are themselves; every other surface's are whoever they are linked to (console, then email). */
export class LinkedIdentity implements PersonIdentity {
  private readonly misses = new Map<string, number>();
  /** Until when a failure of each kind is logged at debug only. */
  private readonly warned = new Map<string, number>();
  private readonly missTtlMs: number;

  constructor(private readonly options: IdentityOptions) {
    this.missTtlMs = options.missTtlMs ?? DEFAULT_MISS_TTL_MS;
  }

  async personFor(requester: Requester | undefined): Promise<string | undefined> {
    if (!requester || requester.id === '') return undefined;
    const themselves = this.options.people.of(requester.platform, requester.id);
    if (themselves !== undefined) return themselves;
    const user = { surface: requester.platform, userId: requester.id };
    try {
      const link = await this.options.links.get(user.surface, user.userId);
      if (link) return link.personId;
      return await this.byEmail(user);
    } catch (error) {
      // Who asked decides only whose key a run uses: without an answer it uses the service key.
      this.failed(user, codeOf(error), hintOf(error));
      return undefined;
    }
  }

  /** A failed lookup: a warning, once per kind of failure per interval (a missing scope fails every time); debug otherwise. */
  private failed(user: SurfaceUser, code: string, hint: string | undefined): void {
    const now = this.options.clock.now();
    const quiet = (this.warned.get(code) ?? -Infinity) > now;
    if (!quiet) this.warned.set(code, now + this.missTtlMs);
    const said = hint ? `${hint}; until then` : 'could not look up which person a user of another surface is:';
    this.options.logger[quiet ? 'debug' : 'warn']({ ...user, err: code }, `${said} requests by ${user.surface} users who are not linked use the service key`);
  }

  private async byEmail(user: SurfaceUser): Promise<string | undefined> {
    const emailOf = this.options.directory.emailOf?.[user.surface];
    const chats = this.options.directory.peopleByEmail ?? [];
    if (!emailOf || chats.length === 0) return undefined;
    const now = this.options.clock.now();
    const missKey = `${user.surface}:${user.userId}`;
    const missUntil = this.misses.get(missKey);
    if (missUntil !== undefined && missUntil > now) return undefined;
    this.misses.delete(missKey);

    const email = (await emailOf(user.userId))?.trim();
    const personId = email ? await this.personByEmail(chats, email) : undefined;
    if (!personId) {
      this.misses.set(missKey, now + this.missTtlMs);
      this.options.logger.debug({ ...user, hasEmail: Boolean(email) }, 'no user of a chat surface has this user’s email');
      return undefined;
    }
    await this.options.links.put({ ...user, personId, how: 'email', linkedAt: now });
    // An admin may have linked the same user meanwhile: theirs wins, so read back what is stored.
    const stored = await this.options.links.get(user.surface, user.userId);
    this.options.logger.info({ ...user, personId: stored?.personId ?? personId }, 'linked a user to a person by email');
    return stored?.personId ?? personId;
  }

  /**
   * The person the first chat surface to know `email` names. A chat that fails does not hide a match on
   * the next; when none matched and one failed, the failure is thrown, so it is not remembered as a miss.
   */
  private async personByEmail(chats: readonly PeopleByEmail[], email: string): Promise<string | undefined> {
    let failure: { error: unknown } | undefined;
    for (const chat of chats) {
      try {
        const userId = await chat.userByEmail(email);
        const personId = userId === undefined ? undefined : this.options.people.of(chat.surface, userId);
        if (personId !== undefined) return personId;
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
    return undefined;
  }
}

/** A user of a surface without people of its own. */
interface SurfaceUser {
  surface: string;
  userId: string;
}

/** An error's code (the platform's own error word first) or name for a log line: never its message, which may quote an email back. */
function codeOf(error: unknown): string {
  const known = error as { data?: { error?: unknown }; code?: unknown; type?: unknown } | null;
  const code = known?.data?.error ?? known?.code ?? known?.type;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'error';
}

/** How to fix what failed, as the surface that failed said it (a missing scope); never the error's message. */
function hintOf(error: unknown): string | undefined {
  const hint = (error as { hint?: unknown } | null)?.hint;
  return typeof hint === 'string' ? hint : undefined;
}
