/** What `config check` and the start say of Jira: its section with the token and secret masked, its summary line and its warning. */
import { describeRoutes, maskSecret, plural, routeList, type SecretSource } from '../../config-kit/describe-parts.js';
import type { ConfigProblem } from '../../config-kit/problem.js';
import type { JiraSection } from './section.js';

/** `config.jira` as `config check` shows it: the API token and webhook secret masked. */
export function describeJira(jira: JiraSection, source: (variable: string) => SecretSource | undefined): Record<string, unknown> {
  return {
    ...jira,
    apiToken: maskSecret(jira.apiToken, source('JIRA_API_TOKEN')) ?? null,
    webhookSecret: maskSecret(jira.webhookSecret, source('JIRA_WEBHOOK_SECRET')) ?? null,
    labels: describeRoutes(jira.labels),
    projects: [...jira.projects],
    allowedUsers: [...jira.allowedUsers],
    states: { ...jira.states },
  };
}

/** Jira's line of the summary: the site, labels, projects and who may start runs, or what turns it on. */
export function jiraSummary(jira: JiraSection): string {
  if (!jira.enabled) return 'Jira: off — set JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN and JIRA_WEBHOOK_SECRET to turn it on';
  const projects = jira.projects.length === 0 ? 'all projects' : `projects ${jira.projects.join(', ')}`;
  const users = jira.allowedUsers.length === 0 ? 'who may edit the issue' : `who may edit the issue and ${plural(jira.allowedUsers.length, 'allowed user')}`;
  return `Jira: on (${jira.baseUrl ?? ''}, webhook at POST /jira/webhook; labels: ${routeList(jira.labels, 'none (no label starts a run)')}; ${projects}; may start runs: ${users}; handle ${jira.handle})`;
}

/** Jira on without a trigger label: labelling an issue starts nothing. */
export function jiraWarnings(jira: JiraSection, label: string): ConfigProblem[] {
  if (!jira.enabled || Object.keys(jira.labels).length > 0) return [];
  return [
    {
      where: `${label}: jira.labels`,
      message: `Jira is on, but no trigger label is listed: labelling an issue starts nothing, only a comment "${jira.handle} new <what to do>" does`,
      hint: 'add the label that starts a run, e.g. jira: { labels: { agent: {} } }',
    },
  ];
}
