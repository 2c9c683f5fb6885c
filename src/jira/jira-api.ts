/**
 * The Jira Cloud REST v3 calls agent-bridge makes, on undici with basic auth (the account's
 * email and API token), a timeout per call and coded errors (`jira-errors.ts`). No retries here: a
 * failed delivery is retried by the outbox, a failed read by the intake worker. Behind the `JiraApi`
 * interface so the notifier, the prompt context and the edge do not know HTTP.
 */
import { adfToText, type AdfDoc } from './adf.js';
import { JiraApiError } from './jira-errors.js';
import { jiraHttp, type JiraHttp, type JiraHttpOptions } from './jira-http.js';

/** The comment property that marks a comment as ours and says which owed message it carries. */
export const MARK_PROPERTY = 'agent-bridge';

export interface JiraComment {
  id: string;
  /** The comment's text (ADF read as text). */
  body: string;
  created: string;
  author?: string;
  authorId?: string;
}

export interface JiraIssueFacts {
  id: string;
  key: string;
  summary: string;
  /** The description's text, when it has one. */
  description?: string;
  labels: string[];
  projectKey?: string;
  /** Where people open it: `<site>/browse/<KEY>`. */
  url: string;
  /** The most recent comments, oldest first. */
  comments: JiraComment[];
}

export interface JiraApi {
  /** The account the token belongs to. */
  myself(): Promise<{ accountId: string; displayName: string }>;
  /** An issue by key (or id), with its `recentComments` most recent comments (none when 0). */
  issue(key: string, recentComments: number): Promise<JiraIssueFacts>;
  /** Creates a comment carrying `mark` in its `agent-bridge` property; answers its id. */
  createComment(issueKey: string, body: AdfDoc, mark: string): Promise<string>;
  updateComment(issueKey: string, commentId: string, body: AdfDoc): Promise<void>;
  /** The id of the comment among the issue's latest that carries `mark`, if any (a create that landed before a crash). */
  findMarkedComment(issueKey: string, mark: string): Promise<string | undefined>;
  transitions(issueKey: string): Promise<Array<{ id: string; name: string; to?: string }>>;
  transition(issueKey: string, transitionId: string): Promise<void>;
  /** The account's email where Jira shows it (the person's profile visibility), else undefined. */
  userEmail(accountId: string): Promise<string | undefined>;
  /**
   * Whether the account may edit the project's issues (Jira's permission search for `EDIT_ISSUES`): an
   * active person's account that holds it. A project Jira does not know is nobody's; a search our
   * account may not make (it needs Administer Projects there, or Administer Jira) throws `forbidden`.
   */
  mayEditIssues(projectKey: string, accountId: string): Promise<boolean>;
  close(): Promise<void>;
}

export type RestJiraOptions = JiraHttpOptions;

/** The project permission that makes someone one of the people who may change an issue. */
export const EDIT_ISSUES = 'EDIT_ISSUES';

/** How many of an issue's latest comments are searched for a mark before re-posting. */
const MARK_SEARCH = 50;

interface CommentJson {
  id: string;
  body?: unknown;
  created?: string;
  author?: { accountId?: string; displayName?: string };
  properties?: Array<{ key?: string; value?: unknown }>;
}

/** A `JiraApi` over REST v3. */
export function restJiraApi(options: RestJiraOptions): JiraApi {
  const base = options.baseUrl.replace(/\/+$/, '');
  const http = jiraHttp({ ...options, baseUrl: base });
  const call = http.call;
  const key = (issueKey: string) => encodeURIComponent(issueKey);
  const comments = async (issueKey: string, count: number, expand?: string) => {
    const query = new URLSearchParams({ orderBy: '-created', maxResults: String(Math.min(count, 100)), ...(expand && { expand }) });
    const page = await call<{ comments?: CommentJson[] }>('GET /issue/{key}/comment', 'GET', `/issue/${key(issueKey)}/comment?${query.toString()}`);
    return Array.isArray(page?.comments) ? page.comments : [];
  };

  return {
    myself: async () => {
      const me = await call<{ accountId?: unknown; displayName?: unknown }>('GET /myself', 'GET', '/myself');
      if (typeof me?.accountId !== 'string') throw new JiraApiError('GET /myself', { code: 'invalid_response', status: 200 });
      return { accountId: me.accountId, displayName: typeof me.displayName === 'string' ? me.displayName : me.accountId };
    },
    issue: async (issueKey, recentComments) => {
      const fields = 'summary,description,labels,project';
      const issue = await call<{ id?: unknown; key?: unknown; fields?: Record<string, unknown> }>(
        'GET /issue/{key}',
        'GET',
        `/issue/${key(issueKey)}?fields=${fields}`,
      );
      if (typeof issue?.id !== 'string' || typeof issue.key !== 'string') throw new JiraApiError('GET /issue/{key}', { code: 'invalid_response', status: 200 });
      const f = issue.fields ?? {};
      const description = adfToText(f['description']);
      const project = f['project'] as { key?: unknown } | undefined;
      const latest = recentComments > 0 ? await comments(issue.key, recentComments) : [];
      return {
        id: issue.id,
        key: issue.key,
        summary: typeof f['summary'] === 'string' ? f['summary'] : '',
        ...(description !== '' && { description }),
        labels: Array.isArray(f['labels']) ? f['labels'].filter((label): label is string => typeof label === 'string') : [],
        ...(typeof project?.key === 'string' && { projectKey: project.key }),
        url: `${base}/browse/${issue.key}`,
        comments: latest
          .map((comment) => ({
            id: String(comment.id),
            body: adfToText(comment.body),
            created: comment.created ?? '',
            ...(comment.author?.displayName !== undefined && { author: comment.author.displayName }),
            ...(comment.author?.accountId !== undefined && { authorId: comment.author.accountId }),
          }))
          .reverse(),
      };
    },
    createComment: async (issueKey, body, mark) => {
      const created = await call<{ id?: unknown }>('POST /issue/{key}/comment', 'POST', `/issue/${key(issueKey)}/comment`, {
        body,
        properties: [{ key: MARK_PROPERTY, value: { mark } }],
      });
      if (typeof created?.id !== 'string') throw new JiraApiError('POST /issue/{key}/comment', { code: 'invalid_response', status: 201 });
      return created.id;
    },
    updateComment: async (issueKey, commentId, body) => {
      await call('PUT /issue/{key}/comment/{id}', 'PUT', `/issue/${key(issueKey)}/comment/${encodeURIComponent(commentId)}`, { body });
    },
    findMarkedComment: async (issueKey, mark) => {
      const latest = await comments(issueKey, MARK_SEARCH, 'properties');
      const found = latest.find((comment) =>
        (comment.properties ?? []).some((property) => property.key === MARK_PROPERTY && (property.value as { mark?: unknown } | undefined)?.mark === mark),
      );
      return found ? String(found.id) : undefined;
    },
    transitions: async (issueKey) => {
      const answer = await call<{ transitions?: Array<{ id?: unknown; name?: unknown; to?: { name?: unknown } }> }>(
        'GET /issue/{key}/transitions',
        'GET',
        `/issue/${key(issueKey)}/transitions`,
      );
      return (answer?.transitions ?? []).flatMap((transition) =>
        typeof transition.id === 'string' && typeof transition.name === 'string'
          ? [{ id: transition.id, name: transition.name, ...(typeof transition.to?.name === 'string' && { to: transition.to.name }) }]
          : [],
      );
    },
    transition: async (issueKey, transitionId) => {
      await call('POST /issue/{key}/transitions', 'POST', `/issue/${key(issueKey)}/transitions`, { transition: { id: transitionId } });
    },
    userEmail: async (accountId) => {
      try {
        const user = await call<{ emailAddress?: unknown; active?: unknown }>('GET /user', 'GET', `/user?accountId=${encodeURIComponent(accountId)}`);
        return user?.active !== false && typeof user?.emailAddress === 'string' && user.emailAddress !== '' ? user.emailAddress : undefined;
      } catch (error) {
        // An account Jira does not know is nobody, not a failure.
        if (error instanceof JiraApiError && error.code === 'not_found') return undefined;
        throw error;
      }
    },
    mayEditIssues: (projectKey, accountId) => mayEditIssues(call, projectKey, accountId),
    close: () => http.close(),
  };
}

/** `JiraApi.mayEditIssues`: one permission search for the account on the project. */
async function mayEditIssues(call: JiraHttp['call'], projectKey: string, accountId: string): Promise<boolean> {
  const query = new URLSearchParams({ permissions: EDIT_ISSUES, projectKey, accountId, maxResults: '50' });
  let users: unknown;
  try {
    users = await call<unknown>('GET /user/permission/search', 'GET', `/user/permission/search?${query.toString()}`);
  } catch (error) {
    if (error instanceof JiraApiError && error.code === 'not_found') return false;
    throw error;
  }
  if (!Array.isArray(users)) throw new JiraApiError('GET /user/permission/search', { code: 'invalid_response', status: 200 });
  // The search answers the users holding the permission among those matching the account id: ours, if any.
  return (users as Array<{ accountId?: unknown; accountType?: unknown; active?: unknown }>).some(
    (user) => user.accountId === accountId && user.active !== false && (user.accountType === undefined || user.accountType === 'atlassian'),
  );
}
