/** What `config check` and the start say of GitLab: its section with the token and secret masked, its summary line and its warning. */
import { describeRoutes, maskSecret, plural, routeList, type SecretSource } from '../../config-kit/describe-parts.js';
import type { ConfigProblem } from '../../config-kit/problem.js';
import type { GitlabSection } from './section.js';

/** `config.gitlab` as `config check` shows it: the token and webhook secret masked. */
export function describeGitlab(gitlab: GitlabSection, source: (variable: string) => SecretSource | undefined): Record<string, unknown> {
  return {
    ...gitlab,
    token: maskSecret(gitlab.token, source('GITLAB_TOKEN')) ?? null,
    webhookSecret: maskSecret(gitlab.webhookSecret, source('GITLAB_WEBHOOK_SECRET')) ?? null,
    projects: describeRoutes(gitlab.projects),
    labels: describeRoutes(gitlab.labels),
    allowedUsers: [...gitlab.allowedUsers],
  };
}

/** GitLab's line of the summary: what is on and who may start runs, or what turns it on. */
export function gitlabSummary(gitlab: GitlabSection): string {
  if (!gitlab.enabled) return 'GitLab: off — set GITLAB_TOKEN and GITLAB_WEBHOOK_SECRET to turn it on (docs/gitlab.md)';
  const users = gitlab.allowedUsers.length === 0 ? 'Developers and above' : `Developers and above and ${plural(gitlab.allowedUsers.length, 'allowed user')}`;
  const signing = gitlab.webhookSecret?.startsWith('whsec_') ? 'signed (Standard Webhooks)' : 'secret token';
  return (
    `GitLab: on (${gitlab.url}, webhook at POST /gitlab/webhook, ${signing}; projects: ${routeList(gitlab.projects, 'none (every project ignored)')}; ` +
    `labels: ${routeList(gitlab.labels, 'none')}; may start runs: ${users}; handle ${gitlab.handle})`
  );
}

/** GitLab on without a project: nothing on GitLab can start a run. */
export function gitlabWarnings(gitlab: GitlabSection, label: string): ConfigProblem[] {
  if (!gitlab.enabled || Object.keys(gitlab.projects).length > 0) return [];
  return [
    {
      where: `${label}: gitlab.projects`,
      message: 'GitLab is on, but no project is listed: every project is ignored, so nothing on GitLab can start a run',
      hint: 'add the projects to serve, e.g. gitlab: { projects: { "acme/web": {} } }, or "*": {} for every project the token can see',
    },
  ];
}
