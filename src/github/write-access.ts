/**
 * Who may drive the agent from GitHub, where the delivery cannot say: a label's sender (GitHub sends a
 * template's labels with the author as sender) and members or collaborators, whose
 * `author_association` says nothing of their access. Asked in the intake worker, never in the webhook
 * handler: `GET /repos/{owner}/{repo}/collaborators/{login}/permission`, the answer kept a few minutes
 * per repository and login. Write access (admin, maintain, write) or `github.allowed_users` clears.
 */
import type { RequesterCheck } from '../core/ports/intake.js';
import type { NewOutboxRow, StoredTrigger } from '../core/ports/store.js';
import { oneLine } from '../core/quote.js';
import type { GithubTriggerConfig } from './acts.js';
import type { GithubApi, GithubPermission } from './github-api.js';
import { parseGithubPlace } from './github-notifier.js';
import { seenRows } from './receipt.js';

/** How long an answer is kept: a revoked access stops driving the agent within this. */
export const PERMISSION_TTL_MS = 5 * 60_000;
/** How many answers are kept (the oldest is forgotten first). */
export const PERMISSION_CACHE_SIZE = 1_000;

/** GitHub's legacy base permissions that can push: maintain is reported as write, and a custom role by the base it extends. */
const WRITE = new Set(['admin', 'maintain', 'write']);

/** The check the intake worker asks for GitHub triggers whose requester the webhook handler could not clear. */
export function githubWriteAccess(deps: {
  api: Pick<GithubApi, 'permission'>;
  config: Pick<GithubTriggerConfig, 'allowedUsers'>;
  now: () => number;
}): RequesterCheck {
  const answers = new Map<string, { permission: GithubPermission; at: number }>();

  const permissionOf = async (repo: string, login: string): Promise<GithubPermission> => {
    const key = `${repo}\n${login}`;
    const known = answers.get(key);
    if (known && deps.now() - known.at < PERMISSION_TTL_MS) return known.permission;
    const permission = await deps.api.permission(repo, login);
    answers.delete(key);
    if (answers.size >= PERMISSION_CACHE_SIZE) answers.delete(answers.keys().next().value ?? '');
    answers.set(key, { permission, at: deps.now() });
    return permission;
  };

  return {
    refusal: async (trigger: StoredTrigger) => {
      const login = trigger.payload.requester?.id;
      if (!login) return 'the request names nobody';
      if (deps.config.allowedUsers.includes(login.toLowerCase())) return undefined;
      const { repo } = parseGithubPlace(trigger.anchor);
      const { permission, role } = await permissionOf(repo, login.toLowerCase());
      if (WRITE.has(permission)) return undefined;
      const has = oneLine(role || permission).slice(0, 40);
      return `${oneLine(login).slice(0, 40)} has ${has === 'none' ? 'no' : has} access to ${repo}, not write, and is not in github.allowed_users`;
    },
    owedOnceCleared: (trigger: StoredTrigger): NewOutboxRow[] => seenRows(trigger),
  };
}
