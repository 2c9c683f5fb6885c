/**
 * Who may start, steer and stop runs from Jira (docs/jira.md, "Who may drive the agent"): the people
 * who may edit the issue — Jira's permission search for `EDIT_ISSUES` on the issue's project, asked
 * in the intake worker and kept five minutes per project and account — and the accounts listed in
 * `jira.allowed_users`. Service-desk customers, apps and changes without an author never reach this:
 * the edge drops them (`normalise.ts`, `notAPerson`) without asking Jira anything.
 */
import { AnswerCache } from '../core/answer-cache.js';
import type { RequesterCheck } from '../core/ports/intake.js';
import type { Logger } from '../core/ports/logger.js';
import type { StoredTrigger } from '../core/ports/store.js';
import type { JiraApi } from './jira-api.js';
import { JiraApiError } from './jira-errors.js';

/** How long Jira's answer for one project and account is used. */
export const PERMISSION_TTL_MS = 5 * 60_000;
/** At most this many answers are kept. */
export const PERMISSION_ENTRIES = 5_000;

export interface JiraAccessOptions {
  api: Pick<JiraApi, 'mayEditIssues'>;
  /** `jira.allowed_users`: account ids that may act besides the people who may edit the issue. */
  allowedUsers: readonly string[];
  now: () => number;
  logger: Logger;
  ttlMs?: number;
  maxEntries?: number;
}

/** The project of a Jira place (`jira:ENG-123` → `ENG`), if it is one. */
export function projectOfPlace(place: string): string | undefined {
  const match = /^jira:([A-Za-z][A-Za-z0-9_]*)-\d+$/.exec(place);
  return match?.[1]?.toUpperCase();
}

export class JiraAccess implements RequesterCheck {
  private readonly allowed: ReadonlySet<string>;
  private readonly answers: AnswerCache<boolean>;

  constructor(private readonly options: JiraAccessOptions) {
    this.allowed = new Set(options.allowedUsers);
    this.answers = new AnswerCache({ ttlMs: options.ttlMs ?? PERMISSION_TTL_MS, maxEntries: options.maxEntries ?? PERMISSION_ENTRIES, now: options.now });
  }

  async refusal(trigger: Pick<StoredTrigger, 'anchor' | 'payload'>): Promise<string | undefined> {
    const requester = trigger.payload.requester;
    if (requester?.platform !== 'jira' || requester.id === '') return 'no Jira account asked';
    if (this.allowed.has(requester.id)) return undefined;
    const project = projectOfPlace(trigger.anchor);
    if (project === undefined) return `${trigger.anchor.slice(0, 80)} is not a Jira issue`;
    const may = await this.answers.get(`${project}\n${requester.id}`, () => this.mayEdit(project, requester.id));
    return may ? undefined : `the account may not edit issues of ${project} and is not in jira.allowed_users`;
  }

  private async mayEdit(project: string, accountId: string): Promise<boolean> {
    try {
      return await this.options.api.mayEditIssues(project, accountId);
    } catch (error) {
      if (!(error instanceof JiraApiError) || error.code !== 'forbidden') throw error;
      // Not the person's fault, and not worth a retry: the operator must grant the permission.
      this.options.logger.warn(
        { project },
        'Jira refused to say who may edit issues of this project: the account JIRA_EMAIL names needs Administer Projects there (or Administer Jira); until then only jira.allowed_users may start, steer or stop runs on it',
      );
      return false;
    }
  }
}
