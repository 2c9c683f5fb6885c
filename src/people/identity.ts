/**
 * Who a requester is as a person who may own a personal API key (issue 20, point 4). A person is
 * identified by their Slack user id (the key page and `/agent connect` store keys under it), so a
 * Slack requester is that person directly. A user of any other surface (Linear, GitHub, Jira) is a
 * person through a link (issue 28: one table for every surface): one an admin made on the console, or
 * one found by the same verified email on both sides (that surface's email of the user, then Slack's
 * `users.lookupByEmail`, which only finds confirmed emails), kept in `person_links` so it is looked up
 * once. Lookups happen in the intake worker, never in a webhook handler; a failed lookup is
 * "no person" (the service key), logged at debug or warn.
 */
import type { Clock } from '../core/ports/clock.js';
import type { PersonIdentity } from '../core/ports/identity.js';
import type { Logger } from '../core/ports/logger.js';
import type { PersonLinkRepository } from '../core/ports/store.js';
import type { Requester } from '../core/ports/triggers.js';

/** The person id (a Slack user id) behind a Slack requester; undefined for every other platform (no links). */
export function personFor(requester: Pick<Requester, 'platform' | 'id'> | undefined): Promise<string | undefined> {
  if (requester?.platform === 'slack' && requester.id !== '') return Promise.resolve(requester.id);
  return Promise.resolve(undefined);
}

/** The lookups by email, each absent when its surface is off. All throw on failure; undefined = not found. */
export interface EmailDirectory {
  /**
   * By surface name: a user's email as that surface knows it — only surfaces whose emails are verified
   * (Linear accounts sign in with theirs; Jira shows one only when the user allows it).
   */
  emailOf?: Readonly<Record<string, (userId: string) => Promise<string | undefined>>>;
  /** The person (a Slack user) with this confirmed email (`users.lookupByEmail`): an active human, else undefined. */
  personByEmail?: (email: string) => Promise<string | undefined>;
}

export interface IdentityOptions {
  /** The surface whose users are people themselves (`slack`): the key page stores keys under their ids. */
  people: string;
  links: PersonLinkRepository;
  directory: EmailDirectory;
  clock: Pick<Clock, 'now'>;
  logger: Logger;
  /**
   * How long "this user has no Slack match" is remembered in memory (default 10 minutes), so a
   * person who comments a lot costs two lookups per interval, not per comment. Failures are not remembered.
   */
  missTtlMs?: number;
}

const DEFAULT_MISS_TTL_MS = 10 * 60_000;

/** The people surface's requesters are themselves; every other surface's are whoever they are linked to (console, then email). */
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
    if (requester.platform === this.options.people) return requester.id;
    const user = { surface: requester.platform, userId: requester.id };
    try {
      const link = await this.options.links.get(user.surface, user.userId);
      if (link) return link.personId;
      return await this.byEmail(user);
    } catch (error) {
      // Who asked decides only whose key a run uses: without an answer it uses the service key.
      this.failed(user, describe(error));
      return undefined;
    }
  }

  /** A failed lookup: a warning, once per kind of failure per interval (a missing scope fails every time); debug otherwise. */
  private failed(user: SurfaceUser, code: string): void {
    const now = this.options.clock.now();
    const quiet = (this.warned.get(code) ?? -Infinity) > now;
    if (!quiet) this.warned.set(code, now + this.missTtlMs);
    const hint =
      code === 'missing_scope'
        ? 'Slack refused users.lookupByEmail (missing_scope): add users:read.email to the Slack app’s bot scopes (manifest.yml) and reinstall it; until then'
        : 'could not look up which Slack user a user of another surface is:';
    this.options.logger[quiet ? 'debug' : 'warn']({ ...user, err: code }, `${hint} requests by ${user.surface} users who are not linked use the service key`);
  }

  private async byEmail(user: SurfaceUser): Promise<string | undefined> {
    const emailOf = this.options.directory.emailOf?.[user.surface];
    const { personByEmail } = this.options.directory;
    if (!emailOf || !personByEmail) return undefined;
    const now = this.options.clock.now();
    const missKey = `${user.surface}:${user.userId}`;
    const missUntil = this.misses.get(missKey);
    if (missUntil !== undefined && missUntil > now) return undefined;
    this.misses.delete(missKey);

    const email = (await emailOf(user.userId))?.trim();
    const personId = email ? await personByEmail(email) : undefined;
    if (!personId) {
      this.misses.set(missKey, now + this.missTtlMs);
      this.options.logger.debug({ ...user, hasEmail: Boolean(email) }, 'no Slack user has this user’s email');
      return undefined;
    }
    await this.options.links.put({ ...user, personId, how: 'email', linkedAt: now });
    // An admin may have linked the same user meanwhile: theirs wins, so read back what is stored.
    const stored = await this.options.links.get(user.surface, user.userId);
    this.options.logger.info({ ...user, personId: stored?.personId ?? personId }, 'linked a user to a Slack user by email');
    return stored?.personId ?? personId;
  }
}

/** A user of a surface without people of its own. */
interface SurfaceUser {
  surface: string;
  userId: string;
}

/** An error's code (Slack's own error word first) or name for a log line: never its message, which may quote an email back. */
function describe(error: unknown): string {
  const known = error as { data?: { error?: unknown }; code?: unknown; type?: unknown } | null;
  const code = known?.data?.error ?? known?.code ?? known?.type;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'error';
}
