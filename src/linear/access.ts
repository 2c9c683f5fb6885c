/**
 * Who may start, steer and stop runs from Linear (docs/linear.md, "Who may drive the agent"). Linear
 * lets every member of a team change its issues, so its roles decide: members and admins may; a
 * guest (an outsider invited to some teams) may only when listed in `linear.allowed_users`; an app's
 * user and a suspended account never. The roles are asked in the intake worker (`user(id) { active
 * guest app }`) and kept five minutes per user. What no person did — a comment an app wrote
 * (`botActor`) or one synced from outside Linear without a user, a change by an integration or an
 * OAuth app — never reaches this: the edge drops it (`normalise.ts`) without asking Linear.
 */
import { AnswerCache } from '../core/answer-cache.js';
import type { RequesterCheck } from '../core/ports/intake.js';
import type { StoredTrigger } from '../core/ports/store.js';
import type { LinearApi, LinearUserRole } from './linear-api.js';

/** How long Linear's answer for one user is used. */
export const ROLE_TTL_MS = 5 * 60_000;
/** At most this many answers are kept. */
export const ROLE_ENTRIES = 5_000;

export interface LinearAccessOptions {
  api: Pick<LinearApi, 'userRole'>;
  /** `linear.allowed_users`: user ids (lower-cased) that may act though they are guests. */
  allowedUsers: readonly string[];
  now: () => number;
  ttlMs?: number;
  maxEntries?: number;
}

export class LinearAccess implements RequesterCheck {
  private readonly allowed: ReadonlySet<string>;
  private readonly roles: AnswerCache<LinearUserRole | undefined>;

  constructor(private readonly options: LinearAccessOptions) {
    this.allowed = new Set(options.allowedUsers.map((id) => id.toLowerCase()));
    this.roles = new AnswerCache({ ttlMs: options.ttlMs ?? ROLE_TTL_MS, maxEntries: options.maxEntries ?? ROLE_ENTRIES, now: options.now });
  }

  async refusal(trigger: Pick<StoredTrigger, 'payload'>): Promise<string | undefined> {
    const requester = trigger.payload.requester;
    if (requester?.platform !== 'linear' || requester.id === '') return 'no Linear user asked';
    const role = await this.roles.get(requester.id.toLowerCase(), () => this.options.api.userRole(requester.id));
    if (!role) return 'Linear does not know the user';
    if (role.app) return 'the user is an app';
    if (!role.active) return 'the user is suspended';
    if (role.guest && !this.allowed.has(requester.id.toLowerCase())) return 'the user is a guest and not in linear.allowed_users';
    return undefined;
  }
}
