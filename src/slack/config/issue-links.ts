/**
 * A mention naming a tracker's issue binds the run to that issue too (`slack.link_linear_issues`,
 * `slack.link_jira_issues`): the keys, what they resolve to, and the warning when the tracker is off.
 */
import { z } from 'zod';
import { withDefault } from '../../config-kit/file-schema-parts.js';
import type { ConfigProblem } from '../../config-kit/problem.js';
import type { SurfaceIsOn } from '../../surface-kit/config-slice.js';

/** The keys of `slack:` that link a mention to a tracker's issue. */
export const issueLinkKeys = {
  // A mention naming a Linear issue (ENG-123, or its URL) binds the run to that issue too.
  link_linear_issues: withDefault(z.boolean(), false),
  // A mention naming a Jira issue (ABC-123, or its URL) of a served project binds the run to that issue too.
  link_jira_issues: withDefault(z.boolean(), false),
};

/** Which trackers' issues a mention binds its run to. */
export interface IssueLinks {
  /** A mention naming a Linear issue binds the run to that issue too (`slack.link_linear_issues`). */
  linkLinearIssues: boolean;
  /** A mention naming a Jira issue of a served project binds the run to that issue too (`slack.link_jira_issues`). */
  linkJiraIssues: boolean;
}

/** The links as `config.slack` holds them. */
export function resolveIssueLinks(file: { link_linear_issues: boolean; link_jira_issues: boolean }): IssueLinks {
  return { linkLinearIssues: file.link_linear_issues, linkJiraIssues: file.link_jira_issues };
}

/** A link to a tracker that is off: the mention starts its run without the issue. */
export function issueLinkWarnings(links: IssueLinks, label: string, isOn: SurfaceIsOn): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  if (links.linkLinearIssues && !isOn('linear')) {
    warnings.push({
      where: `${label}: slack.link_linear_issues`,
      message: 'is true, but Linear is off: a mention naming a Linear issue starts its run without the issue',
      hint: 'turn Linear on with LINEAR_API_KEY (or LINEAR_ACCESS_TOKEN) and LINEAR_WEBHOOK_SECRET, or set it to false',
    });
  }
  if (links.linkJiraIssues && !isOn('jira')) {
    warnings.push({
      where: `${label}: slack.link_jira_issues`,
      message: 'is true, but Jira is off: a mention naming a Jira issue starts its run without the issue',
      hint: 'turn Jira on with JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN and JIRA_WEBHOOK_SECRET, or set it to false',
    });
  }
  return warnings;
}
