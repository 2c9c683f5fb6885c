/**
 * What agent-bridge asks of GitHub's REST API, through Octokit as the GitHub App: the
 * App's JWT finds the installation on a repository, and each installation's token — made, cached and
 * renewed before it expires by `@octokit/auth-app` — makes the calls. One client per installation,
 * kept. Octokit logs nothing of ours: its `log` is silenced (a request's headers hold the token), and
 * its errors stay here: callers get a `GithubCallError` (the status, GitHub's words without credentials).
 */
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { NotifierError } from '../core/ports/notifier.js';
import { redactCredentialShapes } from '../log/credential-shapes.js';
import { GITHUB_TOKEN_SHAPES } from './credential-shapes.js';

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

/** A person's access to a repository: GitHub's legacy base `permission` (admin, write, read, none) and the role's own name. */
export interface GithubPermission {
  permission: string;
  role: string;
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
  /** `login`'s access to `repo` (a login GitHub does not know has none). Needs only the Metadata permission every App has. */
  permission(repo: string, login: string): Promise<GithubPermission>;
}

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** Octokit's `RequestError`, read without importing its class: the status alone decides. */
function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/**
 * A failed call to GitHub as the rest of the service sees it: the status, the headers that say when to
 * try again, and GitHub's message with anything credential-shaped taken out — never Octokit's error
 * itself, whose answer and request may quote the App's JWT or an installation token back (a proxy
 * echoing the Authorization header), and errors reach log lines.
 */
export class GithubCallError extends Error {
  override readonly name = 'GithubCallError';
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly response: { headers: Record<string, string | undefined> },
  ) {
    super(message);
  }
}

const RETRY_HEADERS = ['retry-after', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

/** `error` (from Octokit) as a `GithubCallError` about `what`. */
export function callError(error: unknown, what: string): GithubCallError {
  if (error instanceof GithubCallError) return error;
  const status = statusOf(error);
  const headers = (error as { response?: { headers?: Record<string, unknown> } } | null)?.response?.headers ?? {};
  const kept = Object.fromEntries(RETRY_HEADERS.filter((name) => typeof headers[name] === 'string').map((name) => [name, headers[name] as string]));
  const message = (error as { message?: unknown } | null)?.message;
  const said = redactCredentialShapes(typeof message === 'string' ? message : '', GITHUB_TOKEN_SHAPES)
    .replace(/\s+/g, ' ')
    .slice(0, 200);
  return new GithubCallError(`GitHub answered ${status ?? 'nothing'} to ${what}${said ? `: ${said}` : ''}`, status, { headers: kept });
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

  const api: GithubApi = {
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
    permission: async (repo, login) => {
      const octokit = await clientFor(repo);
      try {
        const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...split(repo), username: login });
        return { permission: data.permission, role: data.role_name };
      } catch (error) {
        if (statusOf(error) === 404) return { permission: 'none', role: 'none' };
        throw error;
      }
    },
  };
  return guarded(api);
}

/** `api` whose every call fails with a `GithubCallError` (named after the call), never with Octokit's own error. */
function guarded(api: GithubApi): GithubApi {
  const wrap = <R>(what: string, call: Promise<R>): Promise<R> =>
    call.catch((error: unknown) => {
      throw callError(error, what);
    });
  return {
    createComment: (repo, number, body) => wrap('create a comment', api.createComment(repo, number, body)),
    updateComment: (repo, commentId, body) => wrap('update a comment', api.updateComment(repo, commentId, body)),
    findComment: (repo, number, marker) => wrap('list the comments', api.findComment(repo, number, marker)),
    issue: (repo, number, latest) => wrap('read the issue', api.issue(repo, number, latest)),
    react: (repo, target, content) => wrap('react', api.react(repo, target, content)),
    knowInstallation: (repo, installationId) => api.knowInstallation(repo, installationId),
    permission: (repo, login) => wrap('read a permission', api.permission(repo, login)),
  };
}
