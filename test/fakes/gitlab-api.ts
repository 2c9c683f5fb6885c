/**
 * A fake GitLab instance on node:http for offline tests: REST v4 under `/api/v4` as GitLab's API docs
 * describe it (https://docs.gitlab.com/api/rest/), and its web URLs under the same origin, so
 * `GITLAB_URL` = `fake.url` is a self-managed instance. It checks the token (`PRIVATE-TOKEN` or
 * `Authorization: Bearer`, https://docs.gitlab.com/api/rest/authentication/), answers the calls in
 * gitlab-routes.ts from state a test sets, paginates lists with GitLab's headers, records every call,
 * and fails calls on demand (429 with `Retry-After` and `RateLimit-*`, 5xx). `deliver` (in
 * gitlab-webhooks.ts) posts webhooks as GitLab does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gitlabRoutes, type Answer, type GitlabState } from './gitlab-routes.js';
import type {
  FakeGitlabIssue,
  FakeGitlabMergeRequest,
  FakeGitlabNote,
  FakeGitlabPipeline,
  FakeGitlabProject,
  FakeGitlabUser,
  NoteableType,
  FakeGitlabPosition,
} from './gitlab-shapes.js';

export * from './gitlab-shapes.js';
export { deliver, signStandardWebhook, newSigningToken, type DeliverOptions, type Delivery } from './gitlab-webhooks.js';

type Json = Record<string, unknown>;

export interface GitlabCall {
  seq: number;
  method: string;
  /** The path as sent, still percent-encoded (`/api/v4/projects/acme%2Fweb/issues/7`). */
  rawPath: string;
  /** The route's name (`createIssueNote`, `getMemberAll`, …), `unknown` when none matched. */
  route: string;
  /** Query and body merged, as Grape reads a request's parameters. */
  params: Json;
  /** How the token came: the `PRIVATE-TOKEN` header or `Authorization: Bearer`. */
  auth: 'private-token' | 'bearer' | 'none';
  token: string | undefined;
  status: number;
}

export interface FakeGitlabOptions {
  /** The token the bridge is given (`GITLAB_TOKEN`); it acts as `user`. */
  token: string;
  /** The token's user (`GET /user`). Default a project access token's bot, `project_42_bot_…`. */
  user?: FakeGitlabUser;
  /** Scopes of the token: with `read_api` alone a write is refused (403 insufficient_scope). Default `['api']`. */
  scopes?: string[];
  projects?: FakeGitlabProject[];
  /** The token's user is an administrator: `GET /users/:id` shows primary emails. Default false. */
  admin?: boolean;
  /** The clock read for `RateLimit-Reset`; default `Date.now`. */
  now?: () => number;
}

export interface FailureOptions {
  /** Default 500. 429 comes with `Retry-After` and `RateLimit-*` headers; 502/503 with an HTML page. */
  status?: number;
  count?: number;
  /** Calls to let through first. */
  after?: number;
  /** Seconds in `Retry-After` (429); default 60. */
  retryAfter?: number;
  /** The error body quotes the request's token back, as a careless proxy might. */
  echo?: boolean;
}

export interface FakeGitlab {
  /** The instance's origin: `GITLAB_URL`. The API is at `${url}/api/v4`. */
  url: string;
  calls: GitlabCall[];
  callsTo(route: string): GitlabCall[];
  me: FakeGitlabUser;
  addProject(project: FakeGitlabProject): void;
  addIssue(issue: FakeGitlabIssue): void;
  issue(project: string, iid: number): FakeGitlabIssue | undefined;
  addMergeRequest(mr: FakeGitlabMergeRequest): void;
  mergeRequest(project: string, iid: number): FakeGitlabMergeRequest | undefined;
  /** Seeds a note by someone (a person's comment, a diff note with `position`, a thread's first note). */
  addNote(
    project: string,
    kind: NoteableType,
    iid: number,
    body: string,
    author: FakeGitlabUser,
    extra?: Partial<Pick<FakeGitlabNote, 'id' | 'type' | 'discussionId' | 'system' | 'internal'>> & { position?: FakeGitlabPosition },
  ): FakeGitlabNote;
  notes(project?: string, kind?: NoteableType, iid?: number): FakeGitlabNote[];
  awards: GitlabState['awards'];
  /** Gives `user` an access level on `project` (inherited or direct: `members/all` sees both). */
  setMember(project: string, user: FakeGitlabUser, accessLevel: number): void;
  /** A user the instance knows without a membership (members and the token's user are known already); replaces one of the same id. */
  addUser(user: FakeGitlabUser): void;
  addPipeline(pipeline: FakeGitlabPipeline): void;
  /** Makes the next calls to `route` fail. */
  failNext(route: string, failure?: FailureOptions): void;
  /** Revokes a token: later calls with it get GitLab's `invalid_token` 401. */
  revokeToken(token: string): void;
  close(): Promise<void>;
}

export const DEFAULT_BOT: FakeGitlabUser = { id: 9_100_042, username: 'project_42_bot_5f1c2d3e', name: 'agent-bridge', bot: true };

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/**
 * Pagination as https://docs.gitlab.com/api/rest/#pagination: `page` (from 1), `per_page` (default
 * 20, at most 100), and the `x-page`, `x-per-page`, `x-next-page`, `x-prev-page`, `x-total`,
 * `x-total-pages` and `Link` headers.
 */
export function paginate(items: unknown[], query: URLSearchParams, selfUrl: URL): { items: unknown[]; headers: Record<string, string> } {
  const perPage = Math.min(100, Math.max(1, Number(query.get('per_page')) || 20));
  const page = Math.max(1, Math.floor(Number(query.get('page'))) || 1);
  const totalPages = Math.max(1, Math.ceil(items.length / perPage));
  const link = (n: number, rel: string) => {
    const u = new URL(selfUrl);
    u.searchParams.set('page', String(n));
    u.searchParams.set('per_page', String(perPage));
    return `<${u.toString()}>; rel="${rel}"`;
  };
  const links = [
    ...(page > 1 ? [link(page - 1, 'prev')] : []),
    ...(page < totalPages ? [link(page + 1, 'next')] : []),
    link(1, 'first'),
    link(totalPages, 'last'),
  ];
  return {
    items: items.slice((page - 1) * perPage, page * perPage),
    headers: {
      'x-page': String(page),
      'x-per-page': String(perPage),
      'x-next-page': page < totalPages ? String(page + 1) : '',
      'x-prev-page': page > 1 ? String(page - 1) : '',
      'x-total': String(items.length),
      'x-total-pages': String(totalPages),
      link: links.join(', '),
    },
  };
}

async function readParams(req: IncomingMessage, query: URLSearchParams): Promise<Json> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  const params: Json = Object.fromEntries(query);
  if (raw === '') return params;
  if (/json/.test(req.headers['content-type'] ?? '')) {
    try {
      const parsed = JSON.parse(raw) as unknown;
      return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? { ...params, ...(parsed as Json) } : params;
    } catch {
      return params;
    }
  }
  return { ...params, ...Object.fromEntries(new URLSearchParams(raw)) };
}

/** Starts a fake GitLab on 127.0.0.1 at a random port. */
export async function startFakeGitlab(options: FakeGitlabOptions): Promise<FakeGitlab> {
  const me = options.user ?? DEFAULT_BOT;
  const now = options.now ?? Date.now;
  let clock = Date.parse('2026-03-02T10:00:00.000Z');
  let nextId = 5_000;
  let origin = '';
  const added: FakeGitlabUser[] = [];
  const state: GitlabState = {
    me: () => me,
    admin: options.admin ?? false,
    users: () => {
      const known = new Map<number, FakeGitlabUser>([[me.id, me]]);
      for (const members of state.members.values()) for (const { user } of members.values()) known.set(user.id, user);
      for (const user of added) known.set(user.id, user);
      return [...known.values()];
    },
    projects: [...(options.projects ?? [])],
    issues: [],
    mergeRequests: [],
    notes: [],
    awards: [],
    pipelines: [],
    members: new Map(),
    nextId: () => nextId++,
    stamp: () => new Date((clock += 1000)).toISOString(),
    web: () => origin,
  };
  const routes = gitlabRoutes(state);
  const calls: GitlabCall[] = [];
  const failures = new Map<string, Required<Omit<FailureOptions, 'retryAfter'>> & { retryAfter: number }>();
  const revoked = new Set<string>();
  const scopes = options.scopes ?? ['api'];

  const server = createServer((req, res) => {
    void (async () => {
      const rawPath = (req.url ?? '/').split('?')[0]!;
      const selfUrl = new URL(req.url ?? '/', origin);
      const params = await readParams(req, selfUrl.searchParams);
      const privateToken = req.headers['private-token'];
      const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const token = typeof privateToken === 'string' ? privateToken : bearer;
      const auth = typeof privateToken === 'string' ? 'private-token' : bearer ? 'bearer' : 'none';
      // Segments are split before decoding: `acme%2Fweb` is one segment, the project's path.
      const segments = rawPath
        .replace(/^\/api\/v4\//, '')
        .split('/')
        .map((s) => decodeURIComponent(s));
      const route = rawPath.startsWith('/api/v4/')
        ? routes.find((r) => r.method === req.method && r.path.length === segments.length && r.path.every((p, i) => p.startsWith(':') || p === segments[i]))
        : undefined;
      const record = (status: number) =>
        calls.push({ seq: calls.length + 1, method: req.method ?? '', rawPath, route: route?.name ?? 'unknown', params, auth, token, status });

      // Grape answers a route it does not know with `error`, not `message`.
      if (!route) return (record(404), sendJson(res, 404, { error: '404 Not Found' }));
      if (token === undefined || token !== options.token) return (record(401), sendJson(res, 401, { message: '401 Unauthorized' }));
      if (revoked.has(token))
        return (record(401), sendJson(res, 401, { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' }));
      if (req.method !== 'GET' && !scopes.includes('api')) {
        record(403);
        return sendJson(res, 403, {
          error: 'insufficient_scope',
          error_description: 'The request requires higher privileges than provided by the access token.',
          scope: 'api',
        });
      }
      const failure = failures.get(route.name);
      if (failure && failure.after > 0) failure.after -= 1;
      else if (failure && failure.count > 0) {
        failure.count -= 1;
        record(failure.status);
        return fail(res, failure, token);
      }
      const values: Record<string, string> = {};
      route.path.forEach((p, i) => {
        if (p.startsWith(':')) values[p.slice(1)] = segments[i]!;
      });
      const answer: Answer = route.handle(values, params, selfUrl.searchParams);
      record(answer.status);
      if (answer.text !== undefined) {
        res.writeHead(answer.status, { 'content-type': 'text/plain' });
        return res.end(answer.text);
      }
      if (answer.page) {
        const { items, headers } = paginate(answer.page, selfUrl.searchParams, selfUrl);
        return sendJson(res, answer.status, items, headers);
      }
      sendJson(res, answer.status, answer.body);
    })();
  });

  // Rack::Attack's throttle answer: text "Retry later", `RateLimit-Reset` as Unix seconds (not a delay).
  // https://docs.gitlab.com/administration/settings/user_and_ip_rate_limits/#response-headers
  const fail = (res: ServerResponse, failure: { status: number; retryAfter: number; echo: boolean }, token: string) => {
    if (failure.status === 429) {
      const reset = Math.ceil(now() / 1000) + failure.retryAfter;
      res.writeHead(429, {
        'content-type': 'text/plain',
        'retry-after': String(failure.retryAfter),
        'ratelimit-name': 'throttle_authenticated_api',
        'ratelimit-limit': '2000',
        'ratelimit-observed': '2001',
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(reset),
        'ratelimit-resettime': new Date(reset * 1000).toUTCString(),
      });
      return res.end(failure.echo ? `Retry later (token ${token})\n` : 'Retry later\n');
    }
    if (failure.status === 502 || failure.status === 503) {
      res.writeHead(failure.status, { 'content-type': 'text/html' });
      return res.end(
        `<!DOCTYPE html><html><head><title>GitLab is not responding (${failure.status})</title></head><body>${failure.echo ? token : ''}</body></html>`,
      );
    }
    sendJson(res, failure.status, { message: failure.echo ? `${failure.status} Internal Server Error: ${token}` : `${failure.status} Internal Server Error` });
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

  return {
    url: origin,
    calls,
    callsTo: (route) => calls.filter((c) => c.route === route),
    me,
    addProject: (p) => state.projects.push(p),
    addIssue: (i) => state.issues.push({ ...i, labels: [...i.labels] }),
    issue: (project, iid) => state.issues.find((i) => same(i.project, project) && i.iid === iid),
    addMergeRequest: (m) => state.mergeRequests.push({ ...m }),
    mergeRequest: (project, iid) => state.mergeRequests.find((m) => same(m.project, project) && m.iid === iid),
    addNote: (project, kind, iid, body, author, extra = {}) => {
      const at = state.stamp();
      const note: FakeGitlabNote = {
        id: extra.id ?? state.nextId(),
        project,
        noteableType: kind,
        noteableIid: iid,
        body,
        author,
        type: extra.type ?? (extra.position ? 'DiffNote' : null),
        discussionId: extra.discussionId ?? `${'d'.repeat(32)}${String(nextId++).padStart(8, '0')}`,
        system: extra.system ?? false,
        internal: extra.internal ?? false,
        created_at: at,
        updated_at: at,
        ...(extra.position && { position: extra.position }),
      };
      state.notes.push(note);
      return note;
    },
    notes: (project, kind, iid) =>
      state.notes.filter(
        (n) =>
          (project === undefined || same(n.project, project)) &&
          (kind === undefined || n.noteableType === kind) &&
          (iid === undefined || n.noteableIid === iid),
      ),
    awards: state.awards,
    setMember: (project, user, accessLevel) => {
      const key = project.toLowerCase();
      if (!state.members.has(key)) state.members.set(key, new Map());
      state.members.get(key)!.set(user.id, { user, accessLevel });
    },
    addUser: (user) => {
      const at = added.findIndex((u) => u.id === user.id);
      if (at >= 0) added.splice(at, 1);
      added.push(user);
    },
    addPipeline: (p) => state.pipelines.push(p),
    failNext: (route, f = {}) =>
      failures.set(route, { status: f.status ?? 500, count: f.count ?? 1, after: f.after ?? 0, retryAfter: f.retryAfter ?? 60, echo: f.echo ?? false }),
    revokeToken: (token) => revoked.add(token),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
