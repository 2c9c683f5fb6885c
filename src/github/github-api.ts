/**
 * What agent-bridge asks of GitHub's REST API, through Octokit as the GitHub App (issue 29): the
 * App's JWT finds the installation on a repository, and each installation's token — made, cached and
 * renewed before it expires by `@octokit/auth-app` — makes the calls. One client per installation,
 * kept. Octokit logs nothing of ours: its `log` is silenced (a request's headers hold the token).
 */
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { NotifierError } from '../core/ports/notifier.js';

export interface GithubComment {
  id: number;
  body: string;
  login: string;
  byBot: boolean;
  createdAt: string;
}

export interface GithubIssueFacts {
  title: string;
  body: string;
  url: string;
  /** The latest comments, oldest first. */
  comments: GithubComment[];
}

/** What a reaction goes on: an issue or pull request comment, or a review comment (on a diff line). */
export type ReactionTarget = { comment: number } | { reviewComment: number };

export interface GithubApi {
  createComment(repo: string, number: number, body: string): Promise<{ id: number; url: string }>;
  updateComment(repo: string, commentId: number, body: string): Promise<void>;
  /** Our comments on the issue whose body holds `marker` (to find a comment posted before a crash). */
  findComment(repo: string, number: number, marker: string): Promise<number | undefined>;
  issue(repo: string, number: number, latestComments: number): Promise<GithubIssueFacts>;
  react(repo: string, target: ReactionTarget, content: 'eyes' | 'rocket'): Promise<void>;
  /** The installation a verified delivery names for `repo`: kept, so its calls need no lookup first. */
  knowInstallation(repo: string, installationId: number): void;
}

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** Octokit's `RequestError`, read without importing its class: the status alone decides. */
function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/**
 * A GitHub failure as the outbox understands it: no answer, 5xx, 429 and rate limits (a 403 with
 * `retry-after` or no requests left) are retried, after `retry-after` when GitHub says; the rest
 * (401, a 403 for want of permission, 404, 422) are not.
 */
export function githubError(error: unknown, what: string): NotifierError {
  const status = statusOf(error);
  const headers = (error as { response?: { headers?: Record<string, string | undefined> } } | null)?.response?.headers ?? {};
  const retryAfter = Number(headers['retry-after']);
  const rateLimited = status === 429 || (status === 403 && (headers['retry-after'] !== undefined || headers['x-ratelimit-remaining'] === '0'));
  const retryable = status === undefined || status >= 500 || rateLimited;
  return new NotifierError(`GitHub refused to ${what} (${status ?? 'no answer'})`, {
    code: status ? `github_${status}` : 'github_unreachable',
    retryable,
    ...(rateLimited && Number.isFinite(retryAfter) && retryAfter > 0 && { retryAfterMs: retryAfter * 1000 }),
    cause: error,
  });
}

function split(repo: string): { owner: string; repo: string } {
  const [owner = '', name = ''] = repo.split('/');
  return { owner, repo: name };
}

/** The App's REST client: `baseUrl` is `GITHUB_API_URL`. */
export function octokitGithubApi(settings: { appId: string; privateKey: string; baseUrl: string }): GithubApi {
  const app = new Octokit({
    baseUrl: settings.baseUrl,
    authStrategy: createAppAuth,
    auth: { appId: settings.appId, privateKey: settings.privateKey },
    log: silent,
  });
  const installations = new Map<string, Promise<Octokit>>();

  const installationClient = (installationId: number) =>
    new Octokit({
      baseUrl: settings.baseUrl,
      authStrategy: createAppAuth,
      auth: { appId: settings.appId, privateKey: settings.privateKey, installationId },
      log: silent,
    });
  /** One client per installation id, whichever repositories name it (each keeps its installation token). */
  const clients = new Map<number, Octokit>();
  const clientOf = (installationId: number): Octokit => {
    let client = clients.get(installationId);
    if (!client) {
      client = installationClient(installationId);
      clients.set(installationId, client);
    }
    return client;
  };

  /** The client of the installation on `repo` (named by a delivery, or found once with the App's JWT, then kept). */
  const clientFor = (repo: string): Promise<Octokit> => {
    const key = repo.toLowerCase();
    let client = installations.get(key);
    if (!client) {
      client = app.rest.apps.getRepoInstallation(split(key)).then(({ data }) => clientOf(data.id));
      // A failure is not kept: the next call asks again.
      client.catch(() => installations.delete(key));
      installations.set(key, client);
    }
    return client;
  };

  const listAll = async (repo: string, number: number, latest: number) => {
    const octokit = await clientFor(repo);
    const { data: issue } = await octokit.rest.issues.get({ ...split(repo), issue_number: number });
    const perPage = 100;
    const count = issue.comments;
    const pages = Math.max(1, Math.ceil(count / perPage));
    const wanted: GithubComment[] = [];
    // Newest last: read the last pages until `latest` are in hand.
    for (let page = pages; page >= 1 && wanted.length < latest; page--) {
      const { data } = await octokit.rest.issues.listComments({ ...split(repo), issue_number: number, per_page: perPage, page });
      wanted.unshift(
        ...data.map((c) => ({ id: c.id, body: c.body ?? '', login: c.user?.login ?? 'someone', byBot: c.user?.type === 'Bot', createdAt: c.created_at })),
      );
    }
    return { issue, comments: wanted.slice(-latest) };
  };

  return {
    createComment: async (repo, number, body) => {
      const octokit = await clientFor(repo);
      const { data } = await octokit.rest.issues.createComment({ ...split(repo), issue_number: number, body });
      return { id: data.id, url: data.html_url };
    },
    updateComment: async (repo, commentId, body) => {
      const octokit = await clientFor(repo);
      await octokit.rest.issues.updateComment({ ...split(repo), comment_id: commentId, body });
    },
    findComment: async (repo, number, marker) => {
      const { comments } = await listAll(repo, number, 100);
      return comments.findLast((c) => c.byBot && c.body.includes(marker))?.id;
    },
    issue: async (repo, number, latestComments) => {
      const { issue, comments } = await listAll(repo, number, latestComments);
      return { title: issue.title, body: issue.body ?? '', url: issue.html_url, comments };
    },
    knowInstallation: (repo, installationId) => {
      const key = repo.toLowerCase();
      if (!installations.has(key)) installations.set(key, Promise.resolve(clientOf(installationId)));
    },
    react: async (repo, target, content) => {
      const octokit = await clientFor(repo);
      if ('comment' in target) await octokit.rest.reactions.createForIssueComment({ ...split(repo), comment_id: target.comment, content });
      else await octokit.rest.reactions.createForPullRequestReviewComment({ ...split(repo), comment_id: target.reviewComment, content });
    },
  };
}
