/**
 * The fake Jira's permission scheme and its permission search (`GET /rest/api/3/user/permission/search`,
 * Atlassian's "Find users with permissions"): the users matching `accountId` (exactly) or `query` (a
 * prefix of the display name) that hold every permission in `permissions` on the project of `projectKey`
 * or `issueKey`. As documented: 400 when `permissions` is empty or names an unknown permission, when
 * neither or both of `accountId` and `query` are given, or neither `projectKey` nor `issueKey`; 404 for
 * a project or issue Jira does not know; 403 when the caller may not search that project (it needs
 * Administer Jira, or Administer Projects there); Retry-After 429s come from `failNext`.
 */

type Json = Record<string, unknown>;

/** What the scheme needs of a user (the fake's `FakeJiraUser`). */
export interface SchemeUser {
  accountId: string;
  displayName: string;
  accountType?: 'atlassian' | 'app' | 'customer';
  active?: boolean;
}

/** Project permission keys as "Get all permissions" lists them, and the deprecated names the search still takes. */
const PERMISSIONS = new Set([
  'ADD_COMMENTS',
  'ADMINISTER_PROJECTS',
  'ASSIGNABLE_USER',
  'ASSIGN_ISSUES',
  'BROWSE_PROJECTS',
  'CLOSE_ISSUES',
  'CREATE_ATTACHMENTS',
  'CREATE_ISSUES',
  'DELETE_ISSUES',
  'EDIT_ISSUES',
  'LINK_ISSUES',
  'MODIFY_REPORTER',
  'MOVE_ISSUES',
  'RESOLVE_ISSUES',
  'SCHEDULE_ISSUES',
  'TRANSITION_ISSUES',
  'WORK_ON_ISSUES',
  'BROWSE',
  'COMMENT_ISSUE',
  'EDIT_ISSUE',
  'PROJECT_ADMIN',
]);

export interface SchemeOptions {
  /** Granted every active person of the site ("Any logged in user"); customers and apps are not granted them. */
  anyoneMay?: string[];
  /** Whether the caller (`myself`) has Administer Jira. */
  administrator: boolean;
  myself: string;
  /** A user the fake knows; an account id it does not know is a person of the site named by it. */
  user(accountId: string): SchemeUser | undefined;
  users(): Iterable<SchemeUser>;
  /** The project of an issue the fake knows. */
  projectOf(issueKey: string): string | undefined;
  hasProject(projectKey: string): boolean;
  userJson(user: SchemeUser): Json;
}

const errors = (...messages: string[]) => ({ errorMessages: messages, errors: {} });

/** The scheme: `grant` adds a project's permissions to one account; `search` answers the permission search. */
export function permissionScheme(options: SchemeOptions) {
  const anyoneMay = new Set(options.anyoneMay ?? ['BROWSE_PROJECTS', 'ADD_COMMENTS', 'EDIT_ISSUES']);
  /** Project key → account id → permissions granted beyond the scheme's. */
  const grants = new Map<string, Map<string, Set<string>>>();
  const granted = (project: string, accountId: string) => grants.get(project)?.get(accountId) ?? new Set<string>();
  const holds = (project: string, user: SchemeUser, permission: string) =>
    granted(project, user.accountId).has(permission) ||
    ((user.accountType ?? 'atlassian') === 'atlassian' && user.active !== false && anyoneMay.has(permission));

  const search = (query: URLSearchParams): { status: number; body: unknown } => {
    const wanted = (query.get('permissions') ?? '')
      .split(',')
      .map((permission) => permission.trim())
      .filter((permission) => permission !== '');
    if (wanted.length === 0 || wanted.some((permission) => !PERMISSIONS.has(permission)))
      return { status: 400, body: errors('permissions is empty or contains an invalid entry.') };
    const accountId = query.get('accountId');
    const text = query.get('query');
    if ((accountId === null) === (text === null)) return { status: 400, body: errors('Provide either query or accountId.') };
    const issueKey = query.get('issueKey');
    const projectKey = query.get('projectKey');
    if (issueKey === null && projectKey === null) return { status: 400, body: errors('Provide issueKey or projectKey.') };
    const project = issueKey !== null ? options.projectOf(issueKey) : projectKey !== null && options.hasProject(projectKey) ? projectKey : undefined;
    if (project === undefined) return { status: 404, body: errors(issueKey !== null ? 'Issue does not exist.' : 'No project could be found.') };
    if (!options.administrator && !granted(project, options.myself).has('ADMINISTER_PROJECTS'))
      return { status: 403, body: errors('You do not have the permission to see the specified project.') };
    const prefix = (text ?? '').toLowerCase();
    const candidates =
      accountId !== null
        ? [options.user(accountId) ?? { accountId, displayName: accountId }]
        : [...options.users()].filter((user) => user.displayName.toLowerCase().startsWith(prefix));
    const found = candidates.filter((user) => wanted.every((permission) => holds(project, user, permission)));
    const startAt = Number(query.get('startAt') ?? 0);
    const maxResults = Number(query.get('maxResults') ?? 50);
    return { status: 200, body: found.slice(startAt, startAt + maxResults).map((user) => options.userJson(user)) };
  };

  return {
    search,
    grant(projectKey: string, accountId: string, ...permissions: string[]): void {
      const byAccount = grants.get(projectKey) ?? new Map<string, Set<string>>();
      byAccount.set(accountId, new Set([...granted(projectKey, accountId), ...permissions]));
      grants.set(projectKey, byAccount);
    },
  };
}
