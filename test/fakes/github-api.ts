/**
 * A fake GitHub REST API on node:http for offline tests, shaped as GitHub's REST docs describe. Point
 * `GITHUB_API_URL` (Octokit's `baseUrl`) at `fake.url`. It hands out installation tokens for a JWT
 * signed with the App's private key (`POST /app/installations/{id}/access_tokens`: RS256, `iss` = the
 * App id, `exp - iat` ≤ 600 s, else 401), and with such a token answers issues, issue comments
 * (create, update, list), reactions on issue comments and review comments, labels, and a person's
 * permission on a repository — from memory. It records every call, and fails the next call to a route
 * with `failNext`.
 */
import { createPublicKey, createVerify, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RestEndpointMethodTypes } from '@octokit/rest';

type Json = Record<string, unknown>;
type PermissionAnswer = RestEndpointMethodTypes['repos']['getCollaboratorPermissionLevel']['response']['data'];

export interface GithubUser {
  login: string;
  id: number;
  type: 'User' | 'Bot';
}

export interface FakeGithubComment {
  id: number;
  node_id: string;
  /** `owner/name`, lower-case as given. */
  repo: string;
  issue: number;
  body: string;
  user: GithubUser;
  author_association: string;
  created_at: string;
  updated_at: string;
  html_url: string;
}

export interface FakeGithubIssue {
  repo: string;
  number: number;
  title: string;
  body: string | null;
  user: GithubUser;
  labels: string[];
  state: 'open' | 'closed';
  /** A pull request shares the issue API: its issue carries `pull_request`. */
  pullRequest?: boolean;
}

export interface GithubCall {
  seq: number;
  method: string;
  /** The path as routed, without the query, e.g. `/repos/acme/web/issues/7/comments`. */
  path: string;
  /** The route's name: `createToken`, `createComment`, `updateComment`, … */
  route: string;
  body: Json | undefined;
  query: Record<string, string>;
  /** The Authorization header as sent. */
  authorization: string | undefined;
  status: number;
}

/** A person's role on a repository, as GitHub names the roles (`role_name`); custom roles aside. */
export type GithubRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

export interface FakeGithubOptions {
  appId: string;
  /** The App's private key (PEM); the fake checks JWTs against its public half. */
  privateKey: string;
  /** The App as a user (its comments' author). Default `agent-bridge[bot]`. */
  botLogin?: string;
  issues?: FakeGithubIssue[];
  /** How long an installation token lives. Default one hour, as GitHub's. */
  tokenTtlMs?: number;
  /** `owner/name` → the App's installation id there (`GET /repos/{o}/{r}/installation`); default 77 for any. */
  installations?: Record<string, number>;
  /**
   * `owner/name` → login → role (`GET /repos/{o}/{r}/collaborators/{login}/permission`). Anyone else
   * has `read`, as everybody has on a public repository.
   */
  roles?: Record<string, Record<string, GithubRole>>;
}

export interface FakeGithubApi {
  url: string;
  calls: GithubCall[];
  callsTo(route: string): GithubCall[];
  /** Installation tokens handed out, in order (a secret: tests check it never reaches a log). */
  tokens: Array<{ token: string; installationId: number; expiresAt: string }>;
  comments(repo?: string, issue?: number): FakeGithubComment[];
  /** Seeds a person's comment (for the prompt's recent comments). */
  addComment(repo: string, issue: number, body: string, user?: Partial<GithubUser>, association?: string, id?: number): FakeGithubComment;
  addIssue(issue: FakeGithubIssue): void;
  issue(repo: string, number: number): FakeGithubIssue | undefined;
  /** `subject` is `issue-comment:<id>` or `review-comment:<id>`. */
  reactions: Array<{ id: number; subject: string; content: string; user: string }>;
  /** Gives `login` a role on `repo` (lower-cased as GitHub matches them). */
  setRole(repo: string, login: string, role: GithubRole): void;
  /**
   * Makes the next `count` calls to `route` answer `status` (default 500), after letting `after` through;
   * `echo`: the answer's message quotes the request's Authorization header back, as a careless proxy does.
   */
  failNext(route: string, failure?: { status?: number; count?: number; after?: number; echo?: boolean }): void;
  close(): Promise<void>;
}

const REACTIONS = new Set(['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes']);

function base64urlJson(part: string): Json | undefined {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return value !== null && typeof value === 'object' ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** Why the App's JWT is refused, or undefined when it is good (as GitHub checks it). */
export function jwtProblem(jwt: string, publicKey: KeyObject, appId: string, nowSeconds: number): string | undefined {
  const parts = jwt.split('.');
  if (parts.length !== 3) return 'not a JWT';
  const [head, payload, signature] = parts as [string, string, string];
  const header = base64urlJson(head);
  const claims = base64urlJson(payload);
  if (header?.['alg'] !== 'RS256' || !claims) return "'alg' must be RS256";
  const verifier = createVerify('RSA-SHA256');
  verifier.update(`${head}.${payload}`);
  if (!verifier.verify(publicKey, Buffer.from(signature, 'base64url'))) return 'signature does not match the App';
  if (String(claims['iss']) !== appId) return "'iss' is not the App id";
  const iat = Number(claims['iat']);
  const exp = Number(claims['exp']);
  if (!Number.isFinite(iat) || !Number.isFinite(exp)) return "'iat' and 'exp' are required";
  if (exp - iat > 600) return "'exp' is too far in the future";
  if (exp <= nowSeconds) return "'exp' is in the past";
  if (iat > nowSeconds + 60) return "'iat' is in the future";
  return undefined;
}

export async function startFakeGithubApi(options: FakeGithubOptions): Promise<FakeGithubApi> {
  const publicKey = createPublicKey(options.privateKey);
  const bot: GithubUser = { login: options.botLogin ?? 'agent-bridge[bot]', id: 9_000_001, type: 'Bot' };
  const issues = new Map<string, FakeGithubIssue>();
  const comments = new Map<number, FakeGithubComment>();
  const reactions: FakeGithubApi['reactions'] = [];
  const calls: GithubCall[] = [];
  const tokens: FakeGithubApi['tokens'] = [];
  const failures = new Map<string, { status: number; count: number; after: number; echo: boolean }>();
  const roles = new Map<string, GithubRole>();
  const roleKey = (repo: string, login: string) => `${repo.toLowerCase()}:${login.toLowerCase()}`;
  for (const [repo, people] of Object.entries(options.roles ?? {})) for (const [login, role] of Object.entries(people)) roles.set(roleKey(repo, login), role);
  let nextId = 1_000;
  let clock = Date.parse('2026-03-02T10:00:00.000Z');
  const stamp = () => new Date((clock += 1000)).toISOString();
  const issueKey = (repo: string, number: number) => `${repo.toLowerCase()}#${number}`;
  const addIssue = (issue: FakeGithubIssue) => issues.set(issueKey(issue.repo, issue.number), { ...issue, labels: [...issue.labels] });
  for (const issue of options.issues ?? []) addIssue(issue);
  let webBase = 'https://github.com';

  const commentJson = (c: FakeGithubComment): Json => ({
    id: c.id,
    node_id: c.node_id,
    url: `${webBase}/api/repos/${c.repo}/issues/comments/${c.id}`,
    html_url: c.html_url,
    issue_url: `${webBase}/api/repos/${c.repo}/issues/${c.issue}`,
    body: c.body,
    user: c.user,
    author_association: c.author_association,
    created_at: c.created_at,
    updated_at: c.updated_at,
  });
  const issueJson = (i: FakeGithubIssue): Json => ({
    id: 50_000 + i.number,
    number: i.number,
    title: i.title,
    body: i.body,
    state: i.state,
    user: i.user,
    labels: i.labels.map((name, index) => ({ id: index + 1, name })),
    html_url: `${webBase}/${i.repo}/${i.pullRequest ? 'pull' : 'issues'}/${i.number}`,
    comments: [...comments.values()].filter((c) => c.repo === i.repo.toLowerCase() && c.issue === i.number).length,
    ...(i.pullRequest && { pull_request: { url: `${webBase}/api/repos/${i.repo}/pulls/${i.number}`, html_url: `${webBase}/${i.repo}/pull/${i.number}` } }),
  });
  const addComment = (repo: string, issue: number, body: string, user: GithubUser, association: string, given?: number): FakeGithubComment => {
    const id = given ?? nextId++;
    const at = stamp();
    const comment: FakeGithubComment = {
      id,
      node_id: `IC_${id}`,
      repo: repo.toLowerCase(),
      issue,
      body,
      user,
      author_association: association,
      created_at: at,
      updated_at: at,
      html_url: `${webBase}/${repo}/issues/${issue}#issuecomment-${id}`,
    };
    comments.set(id, comment);
    return comment;
  };

  // The legacy `permission` maps maintain to write and triage to read; `role_name` is the role itself.
  // Typed by GitHub's published OpenAPI description (through @octokit/rest): a field it requires and
  // the fake left out fails the type check.
  const permissionJson = (login: string, role: GithubRole): PermissionAnswer => {
    const rank = ['none', 'read', 'triage', 'write', 'maintain', 'admin'].indexOf(role);
    const api = `${webBase}/api/users/${login}`;
    return {
      permission: role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role,
      role_name: role,
      user: {
        login,
        id: 583_231,
        node_id: 'MDQ6VXNlcjU4MzIzMQ==',
        avatar_url: `${webBase}/images/${login}.gif`,
        gravatar_id: '',
        url: api,
        html_url: `${webBase}/${login}`,
        followers_url: `${api}/followers`,
        following_url: `${api}/following{/other_user}`,
        gists_url: `${api}/gists{/gist_id}`,
        starred_url: `${api}/starred{/owner}{/repo}`,
        subscriptions_url: `${api}/subscriptions`,
        organizations_url: `${api}/orgs`,
        repos_url: `${api}/repos`,
        events_url: `${api}/events{/privacy}`,
        received_events_url: `${api}/received_events`,
        type: 'User',
        site_admin: false,
        permissions: { pull: rank >= 1, triage: rank >= 2, push: rank >= 3, maintain: rank >= 4, admin: rank >= 5 },
        role_name: role,
      },
    };
  };

  type Answer = { status: number; body?: unknown };
  type Handler = (match: RegExpMatchArray, body: Json | undefined, query: Record<string, string>) => Answer;
  const notFound: Answer = { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };
  const invalid = (message: string): Answer => ({ status: 422, body: { message: 'Validation Failed', errors: [{ message }] } });
  const withIssue = (owner: string, name: string, number: string, then: (issue: FakeGithubIssue) => Answer): Answer => {
    const issue = issues.get(issueKey(`${owner}/${name}`, Number(number)));
    return issue ? then(issue) : notFound;
  };
  const react = (subject: string, content: unknown): Answer => {
    if (typeof content !== 'string' || !REACTIONS.has(content)) return invalid('content is not a valid reaction');
    // GitHub answers 200 with the existing reaction when the same user reacted so before.
    const existing = reactions.find((r) => r.subject === subject && r.content === content && r.user === bot.login);
    if (existing) return { status: 200, body: { id: existing.id, content, user: bot, created_at: stamp() } };
    const reaction = { id: nextId++, subject, content, user: bot.login };
    reactions.push(reaction);
    return { status: 201, body: { id: reaction.id, node_id: `REA_${reaction.id}`, content, user: bot, created_at: stamp() } };
  };

  const routes: Array<{ method: string; pattern: RegExp; name: string; app?: true; handle: Handler }> = [
    {
      method: 'POST',
      pattern: /^\/app\/installations\/(\d+)\/access_tokens$/,
      name: 'createToken',
      app: true,
      handle: (m) => {
        const token = `ghs_${randomBytes(18).toString('base64url')}`;
        const expiresAt = new Date(Date.now() + (options.tokenTtlMs ?? 3_600_000)).toISOString().replace(/\.\d+Z$/, 'Z');
        tokens.push({ token, installationId: Number(m[1]), expiresAt });
        return {
          status: 201,
          body: {
            token,
            expires_at: expiresAt,
            permissions: { issues: 'write', pull_requests: 'write', checks: 'read', metadata: 'read' },
            repository_selection: 'all',
          },
        };
      },
    },
    {
      method: 'GET',
      pattern: /^\/repos\/([^/]+)\/([^/]+)\/installation$/,
      name: 'getRepoInstallation',
      app: true,
      handle: (m) => {
        const repo = `${m[1]}/${m[2]}`.toLowerCase();
        const id = options.installations ? options.installations[repo] : 77;
        return id === undefined
          ? notFound
          : { status: 200, body: { id, app_id: Number(options.appId), account: { login: m[1] }, target_type: 'Organization' } };
      },
    },
    {
      method: 'GET',
      pattern: /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)$/,
      name: 'getIssue',
      handle: (m) => withIssue(m[1]!, m[2]!, m[3]!, (issue) => ({ status: 200, body: issueJson(issue) })),
    },
    {
      method: 'GET',
      pattern: /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/,
      name: 'listComments',
      handle: (m, _body, query) =>
        withIssue(m[1]!, m[2]!, m[3]!, (issue) => {
          const perPage = Math.min(100, Number(query['per_page'] ?? 30) || 30);
          const page = Math.max(1, Number(query['page'] ?? 1) || 1);
          const all = [...comments.values()].filter((c) => c.repo === issue.repo.toLowerCase() && c.issue === issue.number).sort((a, b) => a.id - b.id);
          return { status: 200, body: all.slice((page - 1) * perPage, page * perPage).map(commentJson) };
        }),
    },
    {
      method: 'POST',
      pattern: /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/,
      name: 'createComment',
      handle: (m, body) =>
        withIssue(m[1]!, m[2]!, m[3]!, (issue) => {
          if (typeof body?.['body'] !== 'string' || body['body'] === '') return invalid('body is required');
          return { status: 201, body: commentJson(addComment(issue.repo, issue.number, body['body'], bot, 'NONE')) };
        }),
    },
    {
      method: 'PATCH',
      pattern: /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/,
      name: 'updateComment',
      handle: (m, body) => {
        const comment = comments.get(Number(m[3]));
        if (!comment || comment.repo !== `${m[1]}/${m[2]}`.toLowerCase()) return notFound;
        if (typeof body?.['body'] !== 'string') return invalid('body is required');
        comment.body = body['body'];
        comment.updated_at = stamp();
        return { status: 200, body: commentJson(comment) };
      },
    },
    {
      method: 'POST',
      pattern: /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)\/reactions$/,
      name: 'reactToComment',
      handle: (m, body) => (comments.has(Number(m[3])) ? react(`issue-comment:${m[3]}`, body?.['content']) : notFound),
    },
    {
      method: 'POST',
      pattern: /^\/repos\/([^/]+)\/([^/]+)\/pulls\/comments\/(\d+)\/reactions$/,
      name: 'reactToReviewComment',
      // Review comments live on GitHub's side of the diff: any id is taken as one the test delivered.
      handle: (m, body) => react(`review-comment:${m[3]}`, body?.['content']),
    },
    {
      method: 'GET',
      pattern: /^\/repos\/([^/]+)\/([^/]+)\/collaborators\/([^/]+)\/permission$/,
      name: 'getPermission',
      handle: (m) => {
        const login = decodeURIComponent(m[3]!);
        // GitHub knows every login but these: an unknown one is a 404.
        if (!/^[a-z\d](?:[a-z\d]|-(?=[a-z\d])){0,38}$/i.test(login) || login.toLowerCase() === 'ghost') return notFound;
        const role = roles.get(roleKey(`${m[1]}/${m[2]}`, login)) ?? 'read';
        return { status: 200, body: permissionJson(login, role) };
      },
    },
    {
      method: 'GET',
      pattern: /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/labels$/,
      name: 'listLabels',
      handle: (m) => withIssue(m[1]!, m[2]!, m[3]!, (issue) => ({ status: 200, body: issue.labels.map((name, index) => ({ id: index + 1, name })) })),
    },
  ];

  const readBody = async (req: IncomingMessage): Promise<Json | undefined> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (chunks.length === 0) return undefined;
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
    } catch {
      return undefined;
    }
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const body = await readBody(req);
      const query = Object.fromEntries(url.searchParams);
      const authorization = req.headers.authorization;
      const route = routes.find((r) => r.method === req.method && r.pattern.test(url.pathname));
      const send = (answer: Answer, name: string) => {
        calls.push({ seq: calls.length + 1, method: req.method ?? '', path: url.pathname, route: name, body, query, authorization, status: answer.status });
        res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', 'x-github-request-id': `FAKE:${calls.length}` });
        res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      };
      if (!route) return send(notFound, 'unknown');
      const match = url.pathname.match(route.pattern)!;
      const bearer = /^(?:bearer|token) (.+)$/i.exec(authorization ?? '')?.[1];
      const unauthorized: Answer = { status: 401, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' } };
      if (route.app) {
        const problem = bearer ? jwtProblem(bearer, publicKey, options.appId, Math.floor(Date.now() / 1000)) : 'no JWT';
        if (problem) return send({ status: 401, body: { message: `A JSON web token could not be decoded (${problem})` } }, route.name);
      } else {
        const known = tokens.find((t) => t.token === bearer);
        if (!known || Date.parse(known.expiresAt) <= Date.now()) return send(unauthorized, route.name);
      }
      const failure = failures.get(route.name);
      if (failure && failure.after > 0) failure.after -= 1;
      else if (failure && failure.count > 0) {
        failure.count -= 1;
        return send({ status: failure.status, body: { message: failure.echo ? `Refused: ${authorization ?? ''}` : 'Server Error' } }, route.name);
      }
      send(route.handle(match, body, query), route.name);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  webBase = 'https://github.com';

  return {
    url,
    calls,
    callsTo: (route) => calls.filter((call) => call.route === route),
    tokens,
    comments: (repo, issue) =>
      [...comments.values()]
        .filter((c) => (repo === undefined || c.repo === repo.toLowerCase()) && (issue === undefined || c.issue === issue))
        .sort((a, b) => a.id - b.id),
    addComment: (repo, issue, body, user, association = 'MEMBER', id) =>
      addComment(repo, issue, body, { login: user?.login ?? 'octocat', id: user?.id ?? 583_231, type: user?.type ?? 'User' }, association, id),
    addIssue,
    issue: (repo, number) => issues.get(issueKey(repo, number)),
    reactions,
    setRole: (repo, login, role) => roles.set(roleKey(repo, login), role),
    failNext: (route, failure = {}) =>
      failures.set(route, { status: failure.status ?? 500, count: failure.count ?? 1, after: failure.after ?? 0, echo: failure.echo ?? false }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
