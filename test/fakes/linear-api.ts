/**
 * A fake Linear GraphQL API on node:http for offline tests. Point `LINEAR_API_URL` (or a
 * `LinearClient`'s `apiUrl`) at `fake.url`. It answers the SDK's mutations (`createComment`,
 * `updateComment`, `updateIssue`, `createReaction`, `createAgentActivity`, `updateAgentSession`) and
 * agent-bridge's named reads (`AgentBridgeIssue`, `AgentBridgeUser`, …) from in-memory issues, labels,
 * teams, users and comments, records every call, and injects failures per operation with `failNext` — in Linear's
 * error shape (`errors[].extensions.type`, HTTP 400/429/5xx, Retry-After). A user's roles
 * (`AgentBridgeUserRole`: `active`, `guest`, `app`, as Linear's `User` has them) come from `users`; a user
 * id it does not know is an active member of the workspace, unless `strangersUnknown` makes it one Linear
 * does not know (`Entity not found`).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, unknown>;

export interface FakeLinearIssue {
  id: string;
  identifier: string;
  title: string;
  url: string;
  description?: string;
  team: { id: string; key: string };
  stateId?: string;
}

export interface FakeLinearComment {
  id: string;
  issueId: string;
  body: string;
  createdAt: string;
  /** The author: the API user for comments created through the API, else whoever `addComment` names. */
  user: { id: string; name: string; displayName?: string };
  editedAt?: string;
}

export interface LinearCall {
  seq: number;
  /** The operation name from the query text: `createComment`, `AgentBridgeIssue`, … */
  operation: string;
  variables: Json;
  /** The Authorization header as sent. */
  authorization: string | undefined;
  status: number;
  at: number;
}

export interface LinearFailure {
  count?: number;
  /** HTTP status; 200 with `type` answers a GraphQL error in a 200 (as Linear does for input errors). */
  status?: number;
  /** `extensions.type`, e.g. `ratelimited`, `internal error`, `invalid input`, `authentication error`. */
  type?: string;
  /** Seconds for the Retry-After header. */
  retryAfter?: number;
  /** Wait this long first; without status/type the call then succeeds, late. */
  delayMs?: number;
}

export interface FakeLinearOptions {
  /** The accepted Authorization header value (the API key as is, or `Bearer <token>`); default anything. */
  authorization?: string;
  issues?: FakeLinearIssue[];
  labels?: Array<{ id: string; name: string }>;
  /** Team id → workflow states. */
  states?: Record<string, Array<{ id: string; name: string; type: string }>>;
  viewer?: { id: string; name: string };
  /** Users `AgentBridgeUser` answers (their email makes them a Slack user's person). */
  users?: FakeLinearUser[];
  /** A user id not in `users` is unknown to Linear (`Entity not found`) rather than an active member. */
  strangersUnknown?: boolean;
}

export interface FakeLinearUser {
  id: string;
  name: string;
  email?: string;
  /** False for a deactivated user. Default true. */
  active?: boolean;
  /** A guest of the workspace (limited to some teams). Default false. */
  guest?: boolean;
  /** An app's user. Default false. */
  app?: boolean;
}

export interface FakeLinearApi {
  /** The GraphQL endpoint, e.g. `http://127.0.0.1:PORT/graphql`. */
  url: string;
  calls: LinearCall[];
  callsTo(operation: string): LinearCall[];
  /** Only the mutations, in order. */
  mutations(): LinearCall[];
  comments(issueIdOrIdentifier?: string): FakeLinearComment[];
  /** Seeds a human comment (for the prompt's recent comments). */
  addComment(issueIdOrIdentifier: string, body: string, user?: { id: string; name: string; displayName?: string }): FakeLinearComment;
  reactions: Array<{ id: string; commentId: string; emoji: string }>;
  /** `ephemeral` is set when the activity was created as one (it disappears after the next activity). */
  activities: Array<{ id: string; agentSessionId: string; content: Json; ephemeral?: boolean }>;
  sessions: Map<string, Json>;
  issue(idOrIdentifier: string): FakeLinearIssue | undefined;
  addIssue(issue: FakeLinearIssue): void;
  addUser(user: FakeLinearUser): void;
  failNext(operation: string, failure?: LinearFailure): void;
  close(): Promise<void>;
}

const OPERATION = /^\s*(?:query|mutation)\s+(\w+)/;

function graphqlError(message: string, type: string): Json {
  return { errors: [{ message, extensions: { type, userPresentableMessage: message } }] };
}

export async function startFakeLinearApi(options: FakeLinearOptions = {}): Promise<FakeLinearApi> {
  const issues = new Map<string, FakeLinearIssue>();
  const comments = new Map<string, FakeLinearComment>();
  const reactions: FakeLinearApi['reactions'] = [];
  const activities: FakeLinearApi['activities'] = [];
  const sessions = new Map<string, Json>();
  const calls: LinearCall[] = [];
  const failures = new Map<string, LinearFailure[]>();
  const viewer = options.viewer ?? { id: 'api-user', name: 'agent-bridge' };
  let clock = Date.parse('2026-03-02T10:00:00.000Z');
  let syncId = 1;
  const stamp = () => new Date((clock += 1000)).toISOString();

  const findIssue = (key: string) => issues.get(key) ?? [...issues.values()].find((issue) => issue.identifier === key);
  const addIssue = (issue: FakeLinearIssue) => issues.set(issue.id, { ...issue });
  const users = new Map((options.users ?? []).map((user) => [user.id, { ...user }]));
  for (const issue of options.issues ?? []) addIssue(issue);

  const ok = (root: string, entity: string, id: string): Json => ({
    data: { [root]: { __typename: 'Payload', lastSyncId: syncId++, success: true, [entity]: { id } } },
  });
  const notFound = (what: string) => graphqlError(`Entity not found: ${what}`, 'invalid input');

  const handlers: Record<string, (variables: Json) => Json> = {
    createComment: ({ input }) => {
      const { id = randomUUID(), issueId, body } = input as { id?: string; issueId: string; body: string };
      const issue = findIssue(issueId);
      if (!issue) return notFound('Issue');
      if (comments.has(id)) return graphqlError('Comment with this id already exists', 'invalid input');
      comments.set(id, { id, issueId: issue.id, body, createdAt: stamp(), user: viewer });
      return ok('commentCreate', 'comment', id);
    },
    updateComment: ({ id, input }) => {
      const comment = comments.get(String(id));
      if (!comment) return notFound('Comment');
      comment.body = String((input as Json)['body']);
      comment.editedAt = stamp();
      return ok('commentUpdate', 'comment', comment.id);
    },
    updateIssue: ({ id, input }) => {
      const issue = findIssue(String(id));
      if (!issue) return notFound('Issue');
      const stateId = (input as Json)['stateId'];
      if (typeof stateId === 'string') issue.stateId = stateId;
      return ok('issueUpdate', 'issue', issue.id);
    },
    createReaction: ({ input }) => {
      const { id = randomUUID(), commentId, emoji } = input as { id?: string; commentId: string; emoji: string };
      if (!comments.has(commentId)) return notFound('Comment');
      if (reactions.some((reaction) => reaction.id === id)) return graphqlError('Reaction with this id already exists', 'invalid input');
      reactions.push({ id, commentId, emoji });
      return { data: { reactionCreate: { __typename: 'ReactionPayload', lastSyncId: syncId++, success: true, reaction: { id, emoji } } } };
    },
    createAgentActivity: ({ input }) => {
      const { id = randomUUID(), agentSessionId, content, ephemeral } = input as { id?: string; agentSessionId: string; content: Json; ephemeral?: boolean };
      if (activities.some((activity) => activity.id === id)) return graphqlError('Agent activity with this id already exists', 'invalid input');
      activities.push({ id, agentSessionId, content, ...(ephemeral === true && { ephemeral }) });
      return ok('agentActivityCreate', 'agentActivity', id);
    },
    updateAgentSession: ({ id, input }) => {
      sessions.set(String(id), { ...(sessions.get(String(id)) ?? {}), ...(input as Json) });
      return ok('agentSessionUpdate', 'agentSession', String(id));
    },
    AgentBridgeIssue: ({ id, comments: last }) => {
      const issue = findIssue(String(id));
      if (!issue) return notFound('Issue');
      const nodes = [...comments.values()]
        .filter((comment) => comment.issueId === issue.id)
        .slice(-Number(last))
        .map((comment) => ({
          id: comment.id,
          body: comment.body,
          createdAt: comment.createdAt,
          user: { name: comment.user.name, ...(comment.user.displayName !== undefined && { displayName: comment.user.displayName }) },
          botActor: null,
        }));
      const { identifier, title, url, team } = issue;
      return { data: { issue: { id: issue.id, identifier, title, url, description: issue.description ?? null, team, comments: { nodes } } } };
    },
    AgentBridgeComment: ({ id }) => {
      const comment = comments.get(String(id));
      return comment ? { data: { comment: { id: comment.id } } } : notFound('Comment');
    },
    AgentBridgeLabels: ({ filter }) => {
      const wanted = ((filter as { or?: Array<{ name: { eqIgnoreCase: string } }> } | undefined)?.or ?? []).map((entry) =>
        entry.name.eqIgnoreCase.toLowerCase(),
      );
      const nodes = (options.labels ?? []).filter((label) => wanted.includes(label.name.toLowerCase()));
      return { data: { issueLabels: { nodes } } };
    },
    AgentBridgeViewer: () => ({ data: { viewer } }),
    AgentBridgeUser: ({ id }) => {
      const user = users.get(String(id));
      if (!user) return notFound('User');
      return { data: { user: { id: user.id, email: user.email ?? null, active: user.active ?? true } } };
    },
    AgentBridgeUserRole: ({ id }) => {
      const user = users.get(String(id));
      if (!user && options.strangersUnknown) return notFound('User');
      return { data: { user: { id: String(id), active: user?.active ?? true, guest: user?.guest ?? false, app: user?.app ?? false } } };
    },
    AgentBridgeTeams: ({ filter }) => {
      const wanted = ((filter as { or?: Array<{ key: { eqIgnoreCase: string } }> } | undefined)?.or ?? []).map((entry) => entry.key.eqIgnoreCase.toLowerCase());
      const teams = new Map([...issues.values()].map((issue) => [issue.team.id, issue.team]));
      const nodes = [...teams.values()]
        .filter((team) => wanted.length === 0 || wanted.includes(team.key.toLowerCase()))
        .map((team) => ({ ...team, states: { nodes: options.states?.[team.id] ?? [] } }));
      return { data: { teams: { nodes } } };
    },
    AgentBridgeTeamStates: ({ id }) => {
      const team = [...issues.values()].map((issue) => issue.team).find((candidate) => candidate.id === id || candidate.key === id);
      if (!team) return notFound('Team');
      return { data: { team: { ...team, states: { nodes: options.states?.[team.id] ?? [] } } } };
    },
  };

  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const send = (status: number, body: Json, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    let body: { query?: unknown; variables?: unknown };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
    } catch {
      return send(400, graphqlError('Body is not JSON', 'graphql error'));
    }
    const operation = typeof body.query === 'string' ? (OPERATION.exec(body.query)?.[1] ?? '') : '';
    const variables = (body.variables ?? {}) as Json;
    const call: LinearCall = { seq: calls.length + 1, operation, variables, authorization: req.headers.authorization, status: 200, at: Date.now() };
    calls.push(call);
    const respond = (status: number, payload: Json, headers?: Record<string, string>) => {
      call.status = status;
      send(status, payload, headers);
    };
    if (options.authorization !== undefined && req.headers.authorization !== options.authorization) {
      return respond(401, graphqlError('Authentication required, not authenticated', 'authentication error'));
    }
    const queue = failures.get(operation) ?? failures.get('*');
    const failure = queue?.[0];
    if (failure) {
      failure.count = (failure.count ?? 1) - 1;
      if (failure.count <= 0) queue.shift();
      if (failure.delayMs) await new Promise((resolve) => setTimeout(resolve, failure.delayMs));
      if (failure.status !== undefined || failure.type !== undefined) {
        const status = failure.status ?? (failure.type === 'ratelimited' ? 429 : 200);
        const headers: Record<string, string> = failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {};
        return respond(status, graphqlError(`injected ${failure.type ?? status}`, failure.type ?? 'internal error'), headers);
      }
    }
    const handler = handlers[operation];
    if (!handler) return respond(400, graphqlError(`Unknown operation ${operation || '(none)'}`, 'graphql error'));
    respond(200, handler(variables));
  };

  const server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => {
      res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/graphql`,
    calls,
    callsTo: (operation) => calls.filter((call) => call.operation === operation),
    mutations: () => calls.filter((call) => Object.hasOwn(handlers, call.operation) && !call.operation.startsWith('AgentBridge')),
    comments: (key) => {
      const issue = key === undefined ? undefined : findIssue(key);
      return [...comments.values()].filter((comment) => key === undefined || comment.issueId === issue?.id).map((comment) => ({ ...comment }));
    },
    addComment: (key, body, user = { id: 'human-1', name: 'Ada Lovelace' }) => {
      const issue = findIssue(key);
      if (!issue) throw new Error(`no issue ${key}`);
      const comment = { id: randomUUID(), issueId: issue.id, body, createdAt: stamp(), user };
      comments.set(comment.id, comment);
      return { ...comment };
    },
    reactions,
    activities,
    sessions,
    issue: (key) => findIssue(key),
    addIssue,
    addUser: (user) => users.set(user.id, { ...user }),
    failNext: (operation, failure = { status: 500 }) => {
      const queue = failures.get(operation) ?? [];
      queue.push({ ...failure });
      failures.set(operation, queue);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
