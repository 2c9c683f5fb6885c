/** What `config check` and the start say of GitHub: its section with the key and secret masked, its summary line and its warning. */
import { describeRoutes, maskSecret, plural, routeList, type SecretSource } from '../../config-kit/describe-parts.js';
import type { ConfigProblem } from '../../config-kit/problem.js';
import type { GithubSection } from './section.js';

/** `config.github` as `config check` shows it: the private key and webhook secret masked (the key's source is its file when read from one). */
export function describeGithub(github: GithubSection, source: (variable: string) => SecretSource | undefined): Record<string, unknown> {
  return {
    ...github,
    // Not from GITHUB_PRIVATE_KEY: from the file GITHUB_PRIVATE_KEY_PATH names.
    privateKey: maskSecret(github.privateKey, source('GITHUB_PRIVATE_KEY') ?? 'file') ?? null,
    webhookSecret: maskSecret(github.webhookSecret, source('GITHUB_WEBHOOK_SECRET')) ?? null,
    repos: describeRoutes(github.repos),
    labels: describeRoutes(github.labels),
    allowedUsers: [...github.allowedUsers],
  };
}

/** GitHub's line of the summary: what is on and who may start runs, or what turns it on. */
export function githubSummary(github: GithubSection): string {
  if (!github.enabled) {
    return 'GitHub: off — set GITHUB_APP_ID, GITHUB_PRIVATE_KEY_PATH (or GITHUB_PRIVATE_KEY) and GITHUB_WEBHOOK_SECRET to turn it on (docs/github.md)';
  }
  const users = github.allowedUsers.length === 0 ? 'write access' : `write access and ${plural(github.allowedUsers.length, 'allowed user')}`;
  return (
    `GitHub: on (App ${github.appId ?? ''}, webhook at POST /github/webhook; repos: ${routeList(github.repos, 'none (every repository ignored)')}; ` +
    `labels: ${routeList(github.labels, 'none')}; ` +
    `may start runs: ${users}; pull requests: ${github.pullRequests}; handle ${github.handle})`
  );
}

/** GitHub on without a repository: nothing on GitHub can start a run. */
export function githubWarnings(github: GithubSection, label: string): ConfigProblem[] {
  if (!github.enabled || Object.keys(github.repos).length > 0) return [];
  const labels = Object.keys(github.labels).length > 0 ? ' (a trigger label counts only on a repository listed there)' : '';
  return [
    {
      where: `${label}: github.repos`,
      message: `GitHub is on, but no repository is listed: every repository is ignored${labels}, so nothing on GitHub can start a run`,
      hint: 'add the repositories to serve, e.g. github: { repos: { "acme/web": {} } }, or "*": {} for every repository the App is installed on',
    },
  ];
}
