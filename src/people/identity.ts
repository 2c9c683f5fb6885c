/**
 * Who a requester is as a person who may own a personal API key (issue 20, point 4). A person is
 * identified by their Slack user id (the key page and `/agent connect` store keys under it), so a
 * Slack requester is that person directly. A Linear user is a person through a link: one an admin made
 * on the console, or one found by the same verified email on both sides (the Linear user's email, then
 * Slack's `users.lookupByEmail`, which only finds confirmed emails), kept in `person_links` so it is
 * looked up once. A GitHub login is a person through a console link only. Lookups happen in the intake worker, never in a webhook handler; a failed lookup is
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

/**
 * The key of a GitHub login's link among the person links (which Linear user ids, UUIDs, also key):
 * `github:<login>`, lower-cased as logins are case-insensitive.
 */
export function githubLinkId(login: string): string {
  return `github:${login.toLowerCase()}`;
}

/** The lookups by email, each absent when its platform is off. Both throw on failure; undefined = not found. */
export interface EmailDirectory {
  /** The Linear user's email (Linear accounts sign in with it, so it is verified). */
  linearEmail?: (linearUserId: string) => Promise<string | undefined>;
  /** The Slack user with this confirmed email (`users.lookupByEmail`): an active human, else undefined. */
  slackUserByEmail?: (email: string) => Promise<string | undefined>;
}

export interface IdentityOptions {
  links: PersonLinkRepository;
  directory: EmailDirectory;
  clock: Pick<Clock, 'now'>;
  logger: Logger;
  /**
   * How long "this Linear user has no Slack match" is remembered in memory (default 10 minutes), so a
   * person who comments a lot costs two lookups per interval, not per comment. Failures are not remembered.
   */
  missTtlMs?: number;
}

const DEFAULT_MISS_TTL_MS = 10 * 60_000;

/** Slack requesters are themselves; Linear requesters are whoever they are linked to (console, then email). */
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
    if (requester.platform === 'slack') return requester.id;
    if (requester.platform === 'github') return this.linked(githubLinkId(requester.id));
    if (requester.platform !== 'linear') return undefined;
    try {
      const link = await this.options.links.get(requester.id);
      if (link) return link.slackUserId;
      return await this.byEmail(requester.id);
    } catch (error) {
      // Who asked decides only whose key a run uses: without an answer it uses the service key.
      this.failed(requester.id, describe(error));
      return undefined;
    }
  }

  /** A GitHub login is a person only through a console link (GitHub gives an App no verified email). */
  private async linked(userId: string): Promise<string | undefined> {
    try {
      return (await this.options.links.get(userId))?.slackUserId;
    } catch (error) {
      this.failed(userId, describe(error));
      return undefined;
    }
  }

  /** A failed lookup: a warning, once per kind of failure per interval (a missing scope fails every time); debug otherwise. */
  private failed(linearUserId: string, code: string): void {
    const now = this.options.clock.now();
    const quiet = (this.warned.get(code) ?? -Infinity) > now;
    if (!quiet) this.warned.set(code, now + this.missTtlMs);
    const hint =
      code === 'missing_scope'
        ? 'Slack refused users.lookupByEmail (missing_scope): add users:read.email to the Slack app’s bot scopes (manifest.yml) and reinstall it; until then'
        : 'could not look up which Slack user a Linear user is:';
    this.options.logger[quiet ? 'debug' : 'warn']({ linearUserId, err: code }, `${hint} requests by Linear users who are not linked use the service key`);
  }

  private async byEmail(linearUserId: string): Promise<string | undefined> {
    const { linearEmail, slackUserByEmail } = this.options.directory;
    if (!linearEmail || !slackUserByEmail) return undefined;
    const now = this.options.clock.now();
    const missUntil = this.misses.get(linearUserId);
    if (missUntil !== undefined && missUntil > now) return undefined;
    this.misses.delete(linearUserId);

    const email = (await linearEmail(linearUserId))?.trim();
    const slackUserId = email ? await slackUserByEmail(email) : undefined;
    if (!slackUserId) {
      this.misses.set(linearUserId, now + this.missTtlMs);
      this.options.logger.debug({ linearUserId, hasEmail: Boolean(email) }, 'no Slack user has this Linear user’s email');
      return undefined;
    }
    await this.options.links.put({ linearUserId, slackUserId, how: 'email', linkedAt: now });
    // An admin may have linked the same user meanwhile: theirs wins, so read back what is stored.
    const stored = await this.options.links.get(linearUserId);
    this.options.logger.info({ linearUserId, slackUserId: stored?.slackUserId ?? slackUserId }, 'linked a Linear user to a Slack user by email');
    return stored?.slackUserId ?? slackUserId;
  }
}

/** An error's code (Slack's own error word first) or name for a log line: never its message, which may quote an email back. */
function describe(error: unknown): string {
  const known = error as { data?: { error?: unknown }; code?: unknown; type?: unknown } | null;
  const code = known?.data?.error ?? known?.code ?? known?.type;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'error';
}
