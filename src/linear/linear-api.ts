/**
 * The Linear calls agent-bridge makes, behind one small interface so the notifier, the prompt
 * context and the start-up checks do not depend on the SDK's model classes (which need dozens of
 * fields per entity). Built on the real `@linear/sdk` client: its mutations for writes, its GraphQL
 * client with our named queries (queries.ts) for reads. The SDK is imported lazily by the caller.
 */
import type { LinearClient } from '@linear/sdk';
import { LinearTimeoutError } from './linear-errors.js';
import { COMMENT_QUERY, ISSUE_QUERY, LABELS_QUERY, TEAMS_QUERY, TEAM_STATES_QUERY, USER_QUERY, USER_ROLE_QUERY, VIEWER_QUERY } from './queries.js';

export interface LinearIssueFacts {
  id: string;
  identifier: string;
  title: string;
  url: string;
  /** The issue's description (Markdown), when it has one. */
  description?: string;
  team?: { id: string; key: string };
  /** The most recent comments, oldest first; `author` is the person's display name (else full name). */
  comments: Array<{ id: string; body: string; createdAt: string; author?: string; byApp: boolean }>;
}

export interface LinearApi {
  /** Creates a comment under a client-chosen id (a re-sent create with the same id cannot duplicate). */
  createComment(input: { id: string; issueId: string; body: string }): Promise<void>;
  updateComment(id: string, body: string): Promise<void>;
  /** Whether a comment with this id exists (Linear answers "not found" as an input error). */
  commentExists(id: string): Promise<boolean>;
  /** A reaction under a client-chosen id. */
  react(input: { id: string; commentId: string; emoji: string }): Promise<void>;
  /** An issue by UUID or identifier, with its `recentComments` most recent comments. */
  issue(idOrIdentifier: string, recentComments: number): Promise<LinearIssueFacts>;
  /** Labels whose name is one of `names` (case-insensitive). */
  labels(names: readonly string[]): Promise<Array<{ id: string; name: string }>>;
  viewer(): Promise<{ id: string; name: string }>;
  /** A user's email (Linear accounts sign in with it); undefined for a deactivated user or one without. */
  userEmail(userId: string): Promise<string | undefined>;
  /** What a user is in the workspace (active, a guest, an app); undefined for a user Linear does not know. */
  userRole(userId: string): Promise<LinearUserRole | undefined>;
  teamStates(teamId: string): Promise<Array<{ id: string; name: string; type: string }>>;
  /** Teams with these keys (all teams when empty) and the names of their workflow states. */
  teams(keys: readonly string[]): Promise<Array<{ id: string; key: string; states: string[] }>>;
  moveIssue(issueId: string, stateId: string): Promise<void>;
  /** An activity under a client-chosen id; an `ephemeral` one disappears when the next activity arrives. */
  createActivity(input: { id: string; agentSessionId: string; content: Record<string, unknown>; ephemeral?: boolean }): Promise<void>;
  /** Points the session's external URL at the run's session page (Linear shows it as a link). */
  setSessionLink(agentSessionId: string, url: string): Promise<void>;
}

/** A user's standing in the workspace, as Linear's `User` says it. */
export interface LinearUserRole {
  /** False for a suspended or departed account. */
  active: boolean;
  /** A guest: limited to some teams (Business and Enterprise plans). */
  guest: boolean;
  /** An app's user, not a person. */
  app: boolean;
}

/** The SDK's fetch has no timeout: we stop waiting after this long (the call may still land; ids make a retry safe). */
export const LINEAR_TIMEOUT_MS = 10_000;

interface IssueNode {
  id: string;
  identifier: string;
  title: string;
  url: string;
  description?: string | null;
  team?: { id: string; key: string } | null;
  comments?: {
    nodes?: Array<{ id: string; body: string; createdAt: string; user?: { name?: string; displayName?: string } | null; botActor?: { name?: string } | null }>;
  };
}

/** A `LinearApi` on an SDK client. */
export function sdkLinearApi(client: LinearClient, timeoutMs = LINEAR_TIMEOUT_MS): LinearApi {
  const within = <T>(operation: string, work: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new LinearTimeoutError(`Linear ${operation} did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  };
  const read = async <T>(operation: string, query: string, variables: Record<string, unknown>): Promise<T> => {
    const result = await within(operation, client.client.rawRequest<T, Record<string, unknown>>(query, variables));
    return result.data as T;
  };
  const succeeded = async (operation: string, work: Promise<{ success: boolean }>) => {
    const payload = await within(operation, work);
    if (!payload.success) throw Object.assign(new Error(`Linear ${operation} did not succeed`), { type: 'Other' });
  };

  return {
    createComment: (input) => succeeded('commentCreate', client.createComment(input)),
    updateComment: (id, body) => succeeded('commentUpdate', client.updateComment(id, { body })),
    commentExists: async (id) => {
      try {
        const data = await read<{ comment?: { id: string } | null }>('comment', COMMENT_QUERY, { id });
        return Boolean(data.comment?.id);
      } catch (error) {
        if ((error as { type?: unknown }).type === 'InvalidInput') return false;
        throw error;
      }
    },
    react: (input) => succeeded('reactionCreate', client.createReaction(input)),
    issue: async (idOrIdentifier, recentComments) => {
      const { issue } = await read<{ issue: IssueNode }>('issue', ISSUE_QUERY, { id: idOrIdentifier, comments: recentComments });
      const comments = (issue.comments?.nodes ?? [])
        .map((node) => {
          // People by the name they go by in Linear (its display name), else their full name.
          const author = node.user?.displayName || node.user?.name || node.botActor?.name;
          return { id: node.id, body: node.body, createdAt: node.createdAt, byApp: Boolean(node.botActor), ...(author !== undefined && { author }) };
        })
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      const { id, identifier, title, url, description, team } = issue;
      return { id, identifier, title, url, ...(typeof description === 'string' && { description }), ...(team && { team }), comments };
    },
    labels: async (names) => {
      if (names.length === 0) return [];
      const filter = { or: names.map((name) => ({ name: { eqIgnoreCase: name } })) };
      const data = await read<{ issueLabels: { nodes: Array<{ id: string; name: string }> } }>('issueLabels', LABELS_QUERY, { filter });
      return data.issueLabels.nodes;
    },
    viewer: async () => (await read<{ viewer: { id: string; name: string } }>('viewer', VIEWER_QUERY, {})).viewer,
    userEmail: async (userId) => {
      try {
        const { user } = await read<{ user?: { email?: string | null; active?: boolean | null } | null }>('user', USER_QUERY, { id: userId });
        return user && user.active !== false && user.email ? user.email : undefined;
      } catch (error) {
        // Linear answers an unknown user as an input error: nobody, not a failure.
        if ((error as { type?: unknown }).type === 'InvalidInput') return undefined;
        throw error;
      }
    },
    userRole: async (userId) => {
      try {
        const { user } = await read<{ user?: { active?: boolean | null; guest?: boolean | null; app?: boolean | null } | null }>('user', USER_ROLE_QUERY, {
          id: userId,
        });
        return user ? { active: user.active !== false, guest: user.guest === true, app: user.app === true } : undefined;
      } catch (error) {
        // Linear answers an unknown user as an input error: nobody, not a failure.
        if ((error as { type?: unknown }).type === 'InvalidInput') return undefined;
        throw error;
      }
    },
    teamStates: async (teamId) => {
      const data = await read<{ team: { states: { nodes: Array<{ id: string; name: string; type: string }> } } }>('team', TEAM_STATES_QUERY, { id: teamId });
      return data.team.states.nodes;
    },
    teams: async (keys) => {
      const filter = keys.length > 0 ? { or: keys.map((key) => ({ key: { eqIgnoreCase: key } })) } : undefined;
      const data = await read<{ teams: { nodes: Array<{ id: string; key: string; states: { nodes: Array<{ name: string }> } }> } }>(
        'teams',
        TEAMS_QUERY,
        filter ? { filter } : {},
      );
      return data.teams.nodes.map((team) => ({ id: team.id, key: team.key, states: team.states.nodes.map((state) => state.name) }));
    },
    moveIssue: (issueId, stateId) => succeeded('issueUpdate', client.updateIssue(issueId, { stateId })),
    createActivity: (input) => succeeded('agentActivityCreate', client.createAgentActivity(input)),
    setSessionLink: (agentSessionId, url) =>
      succeeded('agentSessionUpdate', client.updateAgentSession(agentSessionId, { externalUrls: [{ label: 'Open session', url }] })),
  };
}
