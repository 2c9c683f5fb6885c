/**
 * Who may drive the agent from GitLab: members of the project with Developer access or more
 * (inherited memberships count), or people `gitlab.allowed_users` names. Asked in the intake worker,
 * never at the edge: `GET /projects/:id/members/all/:user_id`, the answer kept a few minutes.
 */
import type { RequesterCheck } from '../core/ports/intake.js';
import type { NewOutboxRow, StoredTrigger } from '../core/ports/store.js';
import { oneLine } from '../core/quote.js';
import type { GitlabReference, GitlabTriggerConfig } from './acts.js';
import type { GitlabApi } from './gitlab-api.js';
import { seenRows } from './webhook-handler.js';

/** GitLab's Developer role: may push, so may drive the agent. */
export const DEVELOPER_ACCESS = 30;
/** How long an answer is kept: a revoked access stops driving the agent within this. */
export const ACCESS_TTL_MS = 5 * 60_000;
const CACHE_SIZE = 1_000;

/** The check the intake worker asks for GitLab triggers whose requester `gitlab.allowed_users` does not name. */
export function gitlabMemberAccess(deps: {
  api: Pick<GitlabApi, 'accessLevel'>;
  config: Pick<GitlabTriggerConfig, 'allowedUsers'>;
  now: () => number;
}): RequesterCheck {
  const answers = new Map<string, { level: number; at: number }>();
  const levelOf = async (project: string, userId: number): Promise<number> => {
    const key = `${project}\n${userId}`;
    const known = answers.get(key);
    if (known && deps.now() - known.at < ACCESS_TTL_MS) return known.level;
    const level = await deps.api.accessLevel(project, userId);
    answers.delete(key);
    if (answers.size >= CACHE_SIZE) answers.delete(answers.keys().next().value ?? '');
    answers.set(key, { level, at: deps.now() });
    return level;
  };
  return {
    refusal: async (trigger: StoredTrigger) => {
      const username = trigger.payload.requester?.id;
      if (!username) return 'the request names nobody';
      if (deps.config.allowedUsers.includes(username.toLowerCase())) return undefined;
      const reference = (trigger.payload as { reference?: Partial<GitlabReference> }).reference;
      if (typeof reference?.project !== 'string' || typeof reference.userId !== 'number') return 'the request does not say who asked where';
      const level = await levelOf(reference.project, reference.userId);
      if (level >= DEVELOPER_ACCESS) return undefined;
      return `${oneLine(username).slice(0, 40)} has ${level === 0 ? 'no' : `level ${level}`} access to ${reference.project}, below Developer, and is not in gitlab.allowed_users`;
    },
    owedOnceCleared: (trigger: StoredTrigger): NewOutboxRow[] => seenRows(trigger),
  };
}
