/** `config.github`: the GitHub App's part of the validated configuration (docs/github.md), from its variables and `github:`. */
import type { RouteParts } from '../../config-kit/route-schema.js';
import { compact, companionPlaces, toRoutes } from '../../config-kit/route-values.js';
import type { Route } from '../../core/intake/routing.js';
import type { GithubEnv } from './env.js';
import type { GithubFile } from './file.js';

/** `github.pull_requests`: what on a run's own pull request goes to the run. */
export type GithubPullRequests = 'none' | 'mentions' | 'reviews';

/** On when `GITHUB_APP_ID` is set (the rest is then required). */
export interface GithubSection {
  enabled: boolean;
  appId?: string;
  /** PEM text (read from `GITHUB_PRIVATE_KEY_PATH` or `GITHUB_PRIVATE_KEY`); a secret. */
  privateKey?: string;
  webhookSecret?: string;
  /** REST API base, no trailing slash. */
  apiUrl: string;
  /** Where issue and pull request links point, no trailing slash. */
  webUrl: string;
  handle: string;
  /** `owner/name` lower-cased (or `*`) → route. */
  repos: Record<string, Route>;
  /** Label name, lower-cased → route. */
  labels: Record<string, Route>;
  /** A route's companion places (`<surface>:<value>`): chat places its runs also get a thread in (`slack_channel`…), by repository and by label (keys as above). */
  companions: { repos: Record<string, string[]>; labels: Record<string, string[]> };
  /** Logins, lower-cased, that may start and steer besides people with write access. */
  allowedUsers: string[];
  pullRequests: GithubPullRequests;
  /** Follow-ups per run for failed checks on its pull request (0 = never). */
  ciFailures: number;
}

const lowerCased = (name: string) => name.trim().toLowerCase();

/** `config.github` from the App's variables and `github:` (repositories and labels keyed lower-cased). */
export function resolveGithub(env: GithubEnv, file: GithubFile, parts: RouteParts): GithubSection {
  return {
    enabled: env.appId !== undefined,
    ...compact({ appId: env.appId, privateKey: env.privateKey, webhookSecret: env.webhookSecret }),
    apiUrl: env.apiUrl,
    webUrl: env.webUrl,
    handle: file.handle,
    repos: toRoutes(file.repos, parts, lowerCased),
    labels: toRoutes(file.labels, parts, lowerCased),
    companions: { repos: companionPlaces(file.repos, parts), labels: companionPlaces(file.labels, parts) },
    allowedUsers: file.allowed_users.map((login) => login.toLowerCase()),
    pullRequests: file.pull_requests,
    ciFailures: file.ci_failures,
  };
}
