/**
 * A fake Jira Cloud REST API v3 on node:http for offline tests. Point `JIRA_BASE_URL` at
 * `fake.url`. It checks basic auth (email:API token; 401 otherwise, as Jira answers) and answers what
 * agent-bridge calls, in Atlassian's REST v3 shapes: `GET /rest/api/3/myself`, `GET /rest/api/3/user`,
 * `GET /rest/api/3/issue/{key}` (summary, description as ADF, labels, project), the issue's comments
 * (list with `orderBy` and `expand=properties`, create, update; bodies in ADF, checked to be a `doc`),
 * and its transitions (`GET`, `POST`), and the permission search (`jira-permissions.ts`: `anyoneMay`, by
 * default browse, comment and edit, is granted every person of the site — an account id the fake does
 * not know is such a person; customers and apps are not — and `grant` adds a project's permissions to
 * one account). It records every call and injects failures with `failNext`, in Jira's error shape
 * (`{errorMessages, errors}`, Retry-After on 429).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { permissionScheme } from './jira-permissions.js';

type Json = Record<string, unknown>;

/** An ADF document (`{type: 'doc', version: 1, content}`). */
export type Adf = { type: 'doc'; version: 1; content: Json[] };

export interface FakeJiraUser {
  accountId: string;
  displayName: string;
  /** Shown only when the user lets Jira show it (profile visibility); absent otherwise. */
  emailAddress?: string;
  accountType?: 'atlassian' | 'app' | 'customer';
  /** False for a deactivated account (default true). */
  active?: boolean;
}

export interface FakeJiraIssue {
  id: string;
  key: string;
  summary: string;
  /** ADF, as REST v3 returns it; undefined = none. */
  description?: Adf;
  labels: string[];
  project: { id: string; key: string; name: string };
  status?: string;
}

export interface FakeJiraComment {
  id: string;
  issueKey: string;
  body: Adf;
  author: FakeJiraUser;
  created: string;
  updated: string;
  properties: Array<{ key: string; value: unknown }>;
}

export interface JiraCall {
  seq: number;
  method: string;
  /** The path without the query, e.g. `/rest/api/3/issue/ENG-1/comment`. */
  path: string;
  query: URLSearchParams;
  body: unknown;
  status: number;
}

export interface JiraFailure {
  count?: number;
  status: number;
  /** Seconds for Retry-After. */
  retryAfter?: number;
  /** Do the call first, then answer the failure (a create that landed but whose answer was lost). */
  land?: boolean;
}

export interface FakeJiraOptions {
  /** Basic auth accepted: the account's email and API token. */
  email: string;
  apiToken: string;
  /** Who the token belongs to (`/myself`); default an account named agent-bridge. */
  myself?: FakeJiraUser;
  users?: FakeJiraUser[];
  /** Transition names offered on every issue (each moves to the status of the same name). Default To Do, In Progress, In Review, Done. */
  transitions?: string[];
  /**
   * The project permissions the scheme grants every person of the site ("Any logged in user"); default
   * `BROWSE_PROJECTS`, `ADD_COMMENTS` and `EDIT_ISSUES`. `[]`: only what `grant` gives.
   */
  anyoneMay?: string[];
  /** Whether our own account (`myself`) has Administer Jira, so it may search any project's permissions (default true). */
  administrator?: boolean;
}

export interface FakeJiraApi {
  /** The site, e.g. `http://127.0.0.1:PORT` (JIRA_BASE_URL). */
  url: string;
  myself: FakeJiraUser;
  calls: JiraCall[];
  /** Calls whose method and path match (`*` matches one path segment), e.g. `POST /rest/api/3/issue/*\/comment`. */
  callsTo(method: string, pathPattern: string): JiraCall[];
  addIssue(issue: FakeJiraIssue): void;
  issue(key: string): FakeJiraIssue | undefined;
  addUser(user: FakeJiraUser): void;
  /** Grants `permissions` on the project to the account (e.g. `EDIT_ISSUES`; `ADMINISTER_PROJECTS` lets our own account search it). */
  grant(projectKey: string, accountId: string, ...permissions: string[]): void;
  /** Seeds a person's comment; `body` as text (one paragraph) or ADF. */
  addComment(issueKey: string, body: string | Adf, author?: FakeJiraUser): FakeJiraComment;
  /** The issue's comments, oldest first. */
  comments(issueKey: string): FakeJiraComment[];
  /** The text of an ADF document (text nodes joined, paragraphs by newlines). */
  text(adf: Adf): string;
  /**
   * Called with each call once it is done, before its answer is sent (the crash suite kills the
   * bridge there: Jira took the call, the bridge never heard). Its promise is awaited.
   */
  onAnswer(hook: ((call: JiraCall) => void | Promise<void>) | undefined): void;
  /** Fails the next `count` (default 1) calls of `METHOD path-pattern`. */
  failNext(method: string, pathPattern: string, failure: JiraFailure): void;
  close(): Promise<void>;
}

/** The text of an ADF document: text nodes joined, one line per block. */
export function adfText(adf: Adf | Json | undefined): string {
  const walk = (node: Json): string => {
    if (node['type'] === 'text') return typeof node['text'] === 'string' ? node['text'] : '';
    if (node['type'] === 'hardBreak') return '\n';
    const children = Array.isArray(node['content']) ? (node['content'] as Json[]) : [];
    const inner = children.map(walk).join('');
    return ['paragraph', 'heading', 'listItem', 'codeBlock', 'blockquote'].includes(String(node['type'])) ? `${inner}\n` : inner;
  };
  return adf ? walk(adf).trimEnd() : '';
}

/** One paragraph of text, as a person's comment is written. */
export function adfParagraph(text: string): Adf {
  return { type: 'doc', version: 1, content: [{ type: 'paragraph', content: text ? [{ type: 'text', text }] : [] }] };
}

const matches = (pattern: string, path: string) => {
  const want = pattern.split('/');
  const got = path.split('/');
  return want.length === got.length && want.every((part, index) => part === '*' || part === got[index]);
};

const isAdf = (value: unknown): value is Adf => {
  const doc = value as Json | null;
  return typeof doc === 'object' && doc !== null && doc['type'] === 'doc' && doc['version'] === 1 && Array.isArray(doc['content']);
};

export async function startFakeJiraApi(options: FakeJiraOptions): Promise<FakeJiraApi> {
  const myself: FakeJiraUser = options.myself ?? { accountId: '5f0000000000000000000bot', displayName: 'agent-bridge', accountType: 'atlassian' };
  const users = new Map<string, FakeJiraUser>([[myself.accountId, myself], ...(options.users ?? []).map((user) => [user.accountId, user] as const)]);
  const issues = new Map<string, FakeJiraIssue>();
  const comments: FakeJiraComment[] = [];
  const calls: JiraCall[] = [];
  const failures: Array<{ method: string; pattern: string; failure: JiraFailure; left: number }> = [];
  let beforeAnswer: ((call: JiraCall) => void | Promise<void>) | undefined;
  const transitionNames = options.transitions ?? ['To Do', 'In Progress', 'In Review', 'Done'];
  const expected = `Basic ${Buffer.from(`${options.email}:${options.apiToken}`).toString('base64')}`;
  let nextComment = 10_000;
  let clock = Date.parse('2026-03-02T10:00:00.000Z');
  const stamp = () => new Date((clock += 1000)).toISOString().replace('Z', '+0000');

  const userJson = (user: FakeJiraUser): Json => ({
    self: `/rest/api/3/user?accountId=${user.accountId}`,
    accountId: user.accountId,
    displayName: user.displayName,
    active: user.active ?? true,
    accountType: user.accountType ?? 'atlassian',
    ...(user.emailAddress !== undefined && { emailAddress: user.emailAddress }),
  });
  const scheme = permissionScheme({
    ...(options.anyoneMay && { anyoneMay: options.anyoneMay }),
    administrator: options.administrator ?? true,
    myself: myself.accountId,
    user: (accountId) => users.get(accountId),
    users: () => users.values(),
    projectOf: (issueKey) => issues.get(issueKey)?.project.key,
    hasProject: (projectKey) => [...issues.values()].some((issue) => issue.project.key === projectKey),
    userJson,
  });
  const commentJson = (comment: FakeJiraComment, withProperties: boolean): Json => ({
    self: `/rest/api/3/issue/${comment.issueKey}/comment/${comment.id}`,
    id: comment.id,
    author: userJson(comment.author),
    updateAuthor: userJson(comment.author),
    body: comment.body,
    created: comment.created,
    updated: comment.updated,
    jsdPublic: true,
    ...(withProperties && { properties: comment.properties }),
  });
  const issueJson = (issue: FakeJiraIssue): Json => ({
    id: issue.id,
    key: issue.key,
    self: `/rest/api/3/issue/${issue.id}`,
    fields: {
      summary: issue.summary,
      description: issue.description ?? null,
      labels: issue.labels,
      project: { id: issue.project.id, key: issue.project.key, name: issue.project.name },
      status: { name: issue.status ?? 'To Do' },
    },
  });
  const addComment = (issueKey: string, body: string | Adf, author: FakeJiraUser = { accountId: '5f00000000000000000human', displayName: 'Grace Hopper' }) => {
    const created = stamp();
    const comment: FakeJiraComment = {
      id: String((nextComment += 1)),
      issueKey,
      body: typeof body === 'string' ? adfParagraph(body) : body,
      author,
      created,
      updated: created,
      properties: [],
    };
    comments.push(comment);
    return comment;
  };

  const send = (res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { ...(body !== undefined && { 'content-type': 'application/json;charset=UTF-8' }), ...headers });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const errors = (...messages: string[]) => ({ errorMessages: messages, errors: {} });

  const answer = (method: string, path: string, query: URLSearchParams, body: unknown): { status: number; body?: unknown } => {
    if (method === 'GET' && path === '/rest/api/3/myself') return { status: 200, body: userJson(myself) };
    if (method === 'GET' && path === '/rest/api/3/user') {
      const user = users.get(query.get('accountId') ?? '');
      return user ? { status: 200, body: userJson(user) } : { status: 404, body: errors('The user with the account ID could not be found.') };
    }
    if (method === 'GET' && path === '/rest/api/3/user/permission/search') return scheme.search(query);
    const issueMatch = /^\/rest\/api\/3\/issue\/([^/]+)(\/.*)?$/.exec(path);
    if (!issueMatch) return { status: 404, body: errors('No such endpoint in the fake.') };
    const key = decodeURIComponent(issueMatch[1] ?? '');
    const issue = issues.get(key) ?? [...issues.values()].find((candidate) => candidate.id === key);
    if (!issue) return { status: 404, body: errors('Issue does not exist or you do not have permission to see it.') };
    const rest = issueMatch[2] ?? '';
    if (method === 'GET' && rest === '') return { status: 200, body: issueJson(issue) };
    if (rest === '/comment' && method === 'GET') {
      const newestFirst = query.get('orderBy') === '-created';
      const all = comments.filter((comment) => comment.issueKey === issue.key);
      const ordered = newestFirst ? [...all].reverse() : all;
      const startAt = Number(query.get('startAt') ?? 0);
      const maxResults = Math.min(Number(query.get('maxResults') ?? 50), 100);
      const page = ordered.slice(startAt, startAt + maxResults);
      const withProperties = (query.get('expand') ?? '').split(',').includes('properties');
      return { status: 200, body: { startAt, maxResults, total: all.length, comments: page.map((comment) => commentJson(comment, withProperties)) } };
    }
    if (rest === '/comment' && method === 'POST') {
      const input = body as { body?: unknown; properties?: unknown } | undefined;
      if (!isAdf(input?.body)) return { status: 400, body: { errorMessages: [], errors: { comment: 'Comment body is not valid!' } } };
      const comment = addComment(issue.key, input.body, myself);
      if (Array.isArray(input.properties)) comment.properties = input.properties as FakeJiraComment['properties'];
      return { status: 201, body: commentJson(comment, false) };
    }
    const commentMatch = /^\/comment\/([^/]+)$/.exec(rest);
    if (commentMatch && method === 'PUT') {
      const comment = comments.find((candidate) => candidate.id === commentMatch[1] && candidate.issueKey === issue.key);
      if (!comment) return { status: 404, body: errors('Can not find a comment for the id.') };
      if (comment.author.accountId !== myself.accountId) return { status: 403, body: errors('You do not have permission to edit the comment.') };
      const input = body as { body?: unknown } | undefined;
      if (!isAdf(input?.body)) return { status: 400, body: { errorMessages: [], errors: { comment: 'Comment body is not valid!' } } };
      comment.body = input.body;
      comment.updated = stamp();
      return { status: 200, body: commentJson(comment, false) };
    }
    if (rest === '/transitions' && method === 'GET') {
      const transitions = transitionNames.map((name, index) => ({ id: String(11 + index * 10), name, to: { name, id: String(index + 1) } }));
      return { status: 200, body: { expand: 'transitions', transitions } };
    }
    if (rest === '/transitions' && method === 'POST') {
      const id = (body as { transition?: { id?: unknown } } | undefined)?.transition?.id;
      const index = transitionNames.findIndex((_, at) => String(11 + at * 10) === id);
      if (index === -1) return { status: 400, body: errors('Transition id is not valid for this issue.') };
      issue.status = transitionNames[index];
      return { status: 204 };
    }
    return { status: 404, body: errors('No such endpoint in the fake.') };
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => void respond(req, res, chunks));
  });
  const respond = async (req: IncomingMessage, res: ServerResponse, chunks: Buffer[]) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const record = (status: number) => {
      const call = { seq: calls.length + 1, method, path: url.pathname, query: url.searchParams, body, status };
      calls.push(call);
      return call;
    };
    if (req.headers.authorization !== expected) {
      record(401);
      // Jira answers a wrong or missing token with 401 and a plain text body.
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end('Client must be authenticated to access this resource.');
      return;
    }
    const failure = failures.find((entry) => entry.left > 0 && entry.method === method && matches(entry.pattern, url.pathname));
    if (failure) {
      failure.left -= 1;
      if (failure.failure.land) answer(method, url.pathname, url.searchParams, body);
      record(failure.failure.status);
      const headers: Record<string, string> = failure.failure.retryAfter !== undefined ? { 'retry-after': String(failure.failure.retryAfter) } : {};
      send(res, failure.failure.status, errors('Injected failure.'), headers);
      return;
    }
    const result = answer(method, url.pathname, url.searchParams, body);
    const call = record(result.status);
    await beforeAnswer?.(call);
    send(res, result.status, result.body);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    myself,
    calls,
    callsTo: (method, pattern) => calls.filter((call) => call.method === method && matches(pattern, call.path)),
    addIssue: (issue) => issues.set(issue.key, { ...issue, labels: [...issue.labels] }),
    issue: (key) => issues.get(key),
    addUser: (user) => users.set(user.accountId, user),
    grant: (projectKey, accountId, ...permissions) => scheme.grant(projectKey, accountId, ...permissions),
    addComment,
    comments: (issueKey) => comments.filter((comment) => comment.issueKey === issueKey),
    text: adfText,
    onAnswer: (hook) => {
      beforeAnswer = hook;
    },
    failNext: (method, pattern, failure) => failures.push({ method, pattern, failure, left: failure.count ?? 1 }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
