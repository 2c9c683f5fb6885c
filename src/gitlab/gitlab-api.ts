/**
 * What agent-bridge asks of GitLab's REST v4 API (`{GITLAB_URL}/api/v4`): a small typed client over
 * `fetch` for the handful of calls it makes — the token's own user, an issue and its notes, a note
 * created and edited, an award emoji, a member's access level, a job's log — rather than `@gitbeaker/rest`, whose
 * hundreds of resources this does not need. The token goes in `PRIVATE-TOKEN`; a failed call is a
 * `GitlabCallError` carrying the status and GitLab's words with the token taken out, never the token.
 */
import { NotifierError } from '../core/ports/notifier.js';
import { GitlabCallError, gitlabTransport, tailOf } from './gitlab-transport.js';

export { GitlabCallError } from './gitlab-transport.js';

/** Issues or merge requests: the two kinds of noteable, as their API paths name them. */
export type NoteableKind = 'issues' | 'merge_requests';

export interface GitlabUser {
  id: number;
  username: string;
}

export interface GitlabNote {
  id: number;
  body: string;
  author: GitlabUser & { bot: boolean };
  system: boolean;
  createdAt: string;
}

export interface GitlabIssueFacts {
  title: string;
  description: string;
  url: string;
  /** The latest notes, oldest first (system notes left out). */
  notes: GitlabNote[];
}

export interface GitlabApi {
  /** The token's user (`GET /user`): whose notes are ours. */
  currentUser(): Promise<GitlabUser>;
  /**
   * A user's confirmed email, to link them to a person: the primary email when the token may read it
   * (an administrator's, and only once confirmed), else the public email, which GitLab lets a user
   * choose only among their verified ones. Undefined when there is no such user or they show none.
   */
  userEmail(username: string): Promise<string | undefined>;
  createNote(project: string, kind: NoteableKind, iid: number, body: string): Promise<{ id: number }>;
  editNote(project: string, kind: NoteableKind, iid: number, noteId: number, body: string): Promise<void>;
  /** The latest note by `authorId` whose body holds `marker` (a note posted before a crash). */
  findNote(project: string, kind: NoteableKind, iid: number, marker: string, authorId: number): Promise<number | undefined>;
  issue(project: string, iid: number, latestNotes: number): Promise<GitlabIssueFacts>;
  /**
   * Awards `name` on a note. GitLab answers 404 both when the note is gone and when we awarded it
   * already (its words differ, but words are no contract): either way there is nothing left to do.
   */
  award(project: string, kind: NoteableKind, iid: number, noteId: number, name: 'eyes' | 'rocket'): Promise<void>;
  /** Whether `userId` awarded `name` on the note already (a retry asks before awarding again). */
  hasAward(project: string, kind: NoteableKind, iid: number, noteId: number, name: string, userId: number): Promise<boolean>;
  /** A user's access level on the project, inherited memberships included (0 when not a member). */
  accessLevel(project: string, userId: number): Promise<number>;
  /** A job's log as text, at most its last `maxBytes` bytes (`GET /projects/:id/jobs/:job_id/trace`). */
  jobTrace(project: string, jobId: number, maxBytes: number): Promise<string>;
}

const enc = (project: string) => encodeURIComponent(project);

/** A GitLab failure as the outbox understands it: no answer, 5xx and 429 are retried; the rest are not. */
export function gitlabError(error: unknown, what: string): NotifierError {
  const status = error instanceof GitlabCallError ? error.status : undefined;
  const retryAfterMs = error instanceof GitlabCallError ? error.retryAfterMs : undefined;
  return new NotifierError(`GitLab refused to ${what} (${status ?? 'no answer'})`, {
    code: status ? `gitlab_${status}` : 'gitlab_unreachable',
    retryable: status === undefined || status >= 500 || status === 429,
    ...(retryAfterMs !== undefined && { retryAfterMs }),
    cause: error,
  });
}

/** The client for the instance at `url` (`GITLAB_URL`), acting with `token`. */
export function fetchGitlabApi(settings: { url: string; token: string }): GitlabApi {
  const { send, call } = gitlabTransport(settings);

  type NoteJson = { id: number; body: string; system: boolean; created_at: string; author: { id: number; username: string; bot?: boolean } };
  const toNote = (n: NoteJson): GitlabNote => ({
    id: n.id,
    body: n.body ?? '',
    system: n.system === true,
    createdAt: n.created_at,
    author: { id: n.author.id, username: n.author.username, bot: n.author.bot === true },
  });
  const latestNotes = async (project: string, kind: NoteableKind, iid: number, count: number) => {
    const perPage = Math.min(100, Math.max(1, count));
    const { json } = await call<NoteJson[]>(
      'list the notes',
      'GET',
      `/projects/${enc(project)}/${kind}/${iid}/notes?sort=desc&order_by=created_at&per_page=${perPage}`,
    );
    return json.map(toNote);
  };

  return {
    currentUser: async () => {
      const { json } = await call<GitlabUser>('read the token’s user', 'GET', '/user');
      return { id: json.id, username: json.username };
    },
    userEmail: async (username) => {
      const { json: found } = await call<{ id: number; username: string }[]>('find a user', 'GET', `/users?username=${encodeURIComponent(username)}`);
      const user = found.find((candidate) => candidate.username.toLowerCase() === username.toLowerCase());
      if (!user) return undefined;
      const { json } = await call<{ email?: string | null; confirmed_at?: string | null; public_email?: string | null }>(
        'read a user',
        'GET',
        `/users/${user.id}`,
      );
      const email = json.email && json.confirmed_at ? json.email : json.public_email;
      return email?.trim() || undefined;
    },
    createNote: async (project, kind, iid, body) => {
      const { json } = await call<{ id: number }>('create a note', 'POST', `/projects/${enc(project)}/${kind}/${iid}/notes`, { body });
      return { id: json.id };
    },
    editNote: async (project, kind, iid, noteId, body) => {
      await call('edit a note', 'PUT', `/projects/${enc(project)}/${kind}/${iid}/notes/${noteId}`, { body });
    },
    findNote: async (project, kind, iid, marker, authorId) =>
      (await latestNotes(project, kind, iid, 100)).find((n) => n.author.id === authorId && n.body.includes(marker))?.id,
    issue: async (project, iid, latest) => {
      const { json } = await call<{ title: string; description: string | null; web_url: string }>(
        'read the issue',
        'GET',
        `/projects/${enc(project)}/issues/${iid}`,
      );
      const notes = latest > 0 ? (await latestNotes(project, 'issues', iid, latest)).filter((n) => !n.system).reverse() : [];
      return { title: json.title, description: json.description ?? '', url: json.web_url, notes };
    },
    award: async (project, kind, iid, noteId, name) => {
      await call('award an emoji', 'POST', `/projects/${enc(project)}/${kind}/${iid}/notes/${noteId}/award_emoji`, { name });
    },
    hasAward: async (project, kind, iid, noteId, name, userId) => {
      const { json } = await call<{ name: string; user: { id: number } }[]>(
        'list the emoji of a note',
        'GET',
        `/projects/${enc(project)}/${kind}/${iid}/notes/${noteId}/award_emoji?per_page=100`,
      );
      return json.some((award) => award.name === name && award.user?.id === userId);
    },
    jobTrace: async (project, jobId, maxBytes) => {
      const { response } = await send('read a job’s log', 'GET', `/projects/${enc(project)}/jobs/${jobId}/trace`, undefined, true);
      return tailOf(response, maxBytes);
    },
    accessLevel: async (project, userId) => {
      try {
        const { json } = await call<{ access_level: number }>('read a member', 'GET', `/projects/${enc(project)}/members/all/${userId}`);
        return typeof json.access_level === 'number' ? json.access_level : 0;
      } catch (error) {
        if (error instanceof GitlabCallError && error.status === 404) return 0;
        throw error;
      }
    },
  };
}
