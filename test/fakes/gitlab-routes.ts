/**
 * The REST v4 routes the fake GitLab answers, each as GitLab's API docs describe it, over the state in
 * `GitlabState`. A route names its path by segments (`:id` is a project id or URL-encoded path) and
 * answers a status and a body; the server (gitlab-api.ts) does auth, faults, pagination and recording.
 */
import { randomBytes } from 'node:crypto';
import {
  EMOJI,
  shapes,
  type FakeGitlabAward,
  type FakeGitlabIssue,
  type FakeGitlabMergeRequest,
  type FakeGitlabNote,
  type FakeGitlabPipeline,
  type FakeGitlabProject,
  type FakeGitlabUser,
  type NoteableType,
} from './gitlab-shapes.js';

type Json = Record<string, unknown>;

/** What a route answers: JSON (`body`), raw text (`text`), or a list the server paginates (`page`). */
export interface Answer {
  status: number;
  body?: unknown;
  text?: string;
  page?: unknown[];
}

export interface GitlabState {
  me: () => FakeGitlabUser;
  /** Whether the token's user is an administrator (sees others' primary emails). */
  admin: boolean;
  /** Every user the instance knows: the token's, members', and those added. */
  users: () => FakeGitlabUser[];
  projects: FakeGitlabProject[];
  issues: FakeGitlabIssue[];
  mergeRequests: FakeGitlabMergeRequest[];
  notes: FakeGitlabNote[];
  awards: FakeGitlabAward[];
  pipelines: FakeGitlabPipeline[];
  /** `project path (lower case)` → user id → access level, inherited memberships included. */
  members: Map<string, Map<number, { user: FakeGitlabUser; accessLevel: number }>>;
  nextId: () => number;
  stamp: () => string;
  web: () => string;
}

export interface Route {
  method: string;
  /** Path segments after `/api/v4/`; `:name` matches one (decoded) segment. */
  path: string[];
  name: string;
  handle: (params: Record<string, string>, input: Json, query: URLSearchParams) => Answer;
}

// GitLab's error bodies: helpers' not_found!('Project') says "404 Project Not Found"; a record the
// database does not hold (ActiveRecord::RecordNotFound) is "404 Not found", lower-case f.
export const notFound = (what?: string): Answer => ({ status: 404, body: { message: what ? `404 ${what} Not Found` : '404 Not found' } });
const forbidden: Answer = { status: 403, body: { message: '403 Forbidden' } };
const missing = (param: string): Answer => ({ status: 400, body: { error: `${param} is missing` } });
const invalid = (param: string): Answer => ({ status: 400, body: { error: `${param} is invalid` } });
const NOTE_LIMIT = 1_000_000;

const listParam = (value: unknown): string[] =>
  (Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',') : []).map((s) => s.trim()).filter(Boolean);

/** The routes over `state`. */
export function gitlabRoutes(state: GitlabState): Route[] {
  const json = shapes(state.web);
  const project = (id: string) =>
    /^\d+$/.test(id) ? state.projects.find((p) => p.id === Number(id)) : state.projects.find((p) => p.path_with_namespace.toLowerCase() === id.toLowerCase());
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const iidOf = (raw: string | undefined) => (raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined);

  // Resolves the project and the noteable, answering GitLab's 404s and 400s on the way.
  const withNoteable = (
    kind: NoteableType,
    params: Record<string, string>,
    then: (p: FakeGitlabProject, iid: number, noteable: FakeGitlabIssue | FakeGitlabMergeRequest) => Answer,
  ): Answer => {
    const p = project(params['id']!);
    if (!p) return notFound('Project');
    const iidName = kind === 'Issue' ? 'issue_iid' : 'merge_request_iid';
    const iid = iidOf(params[iidName]);
    if (iid === undefined) return invalid(iidName);
    const list: Array<FakeGitlabIssue | FakeGitlabMergeRequest> = kind === 'Issue' ? state.issues : state.mergeRequests;
    const noteable = list.find((n) => same(n.project, p.path_with_namespace) && n.iid === iid);
    return noteable ? then(p, iid, noteable) : notFound();
  };
  const notesOf = (p: FakeGitlabProject, kind: NoteableType, iid: number) =>
    state.notes.filter((n) => same(n.project, p.path_with_namespace) && n.noteableType === kind && n.noteableIid === iid);
  const bodyOf = (input: Json): string | Answer => {
    if (typeof input['body'] !== 'string' || input['body'] === '') return missing('body');
    if (input['body'].length > NOTE_LIMIT) return { status: 400, body: { message: { note: [`is too long (maximum is ${NOTE_LIMIT} characters)`] } } };
    return input['body'];
  };
  const addNote = (p: FakeGitlabProject, kind: NoteableType, iid: number, body: string, extra: Partial<FakeGitlabNote> = {}): FakeGitlabNote => {
    const at = state.stamp();
    const note: FakeGitlabNote = {
      id: state.nextId(),
      project: p.path_with_namespace,
      noteableType: kind,
      noteableIid: iid,
      body,
      author: state.me(),
      type: null,
      discussionId: randomBytes(20).toString('hex'),
      system: false,
      internal: false,
      created_at: at,
      updated_at: at,
      ...extra,
    };
    state.notes.push(note);
    return note;
  };

  const noteRoutes = (kind: NoteableType): Route[] => {
    const plural = kind === 'Issue' ? 'issues' : 'merge_requests';
    const iidName = kind === 'Issue' ? ':issue_iid' : ':merge_request_iid';
    const word = kind === 'Issue' ? 'Issue' : 'MergeRequest';
    const base = ['projects', ':id', plural, iidName, 'notes'];
    const withNote = (params: Record<string, string>, then: (note: FakeGitlabNote, p: FakeGitlabProject) => Answer) =>
      withNoteable(kind, params, (p, iid) => {
        const note = notesOf(p, kind, iid).find((n) => String(n.id) === params['note_id']);
        return note ? then(note, p) : notFound();
      });
    return [
      {
        method: 'GET',
        path: base,
        name: `list${word}Notes`,
        // https://docs.gitlab.com/api/notes/#list-project-issue-notes — newest first unless sort=asc.
        handle: (params, _input, query) =>
          withNoteable(kind, params, (p, iid) => {
            const key = query.get('order_by') === 'updated_at' ? 'updated_at' : 'created_at';
            const sign = query.get('sort') === 'asc' ? 1 : -1;
            const notes = [...notesOf(p, kind, iid)].sort((a, b) => sign * (a[key].localeCompare(b[key]) || a.id - b.id));
            return { status: 200, page: notes.map((n) => json.noteJson(n, p.id)) };
          }),
      },
      {
        method: 'POST',
        path: base,
        name: `create${word}Note`,
        handle: (params, input) =>
          withNoteable(kind, params, (p, iid) => {
            const body = bodyOf(input);
            if (typeof body !== 'string') return body;
            return { status: 201, body: json.noteJson(addNote(p, kind, iid, body, { internal: input['internal'] === true }), p.id) };
          }),
      },
      {
        method: 'PUT',
        path: [...base, ':note_id'],
        name: `edit${word}Note`,
        // Only the author (or an admin) may edit a note.
        handle: (params, input) =>
          withNote(params, (note, p) => {
            const body = bodyOf(input);
            if (typeof body !== 'string') return body;
            if (note.author.id !== state.me().id) return forbidden;
            note.body = body;
            note.updated_at = state.stamp();
            return { status: 200, body: json.noteJson(note, p.id) };
          }),
      },
      {
        method: 'GET',
        path: [...base, ':note_id', 'award_emoji'],
        name: `list${word}NoteAwards`,
        handle: (params) => withNote(params, (note) => ({ status: 200, page: state.awards.filter((a) => a.noteId === note.id).map(json.awardJson) })),
      },
      {
        method: 'POST',
        path: [...base, ':note_id', 'award_emoji'],
        name: `award${word}Note`,
        // A refused award is a 404 whose message carries the reason: not_found!("Award Emoji #{message}").
        handle: (params, input) =>
          withNote(params, (note) => {
            const name = input['name'];
            if (typeof name !== 'string' || name === '') return missing('name');
            if (!EMOJI.has(name)) return notFound('Award Emoji Name is not a valid emoji name');
            if (state.awards.some((a) => a.noteId === note.id && a.name === name && a.user.id === state.me().id))
              return notFound('Award Emoji Name has already been taken');
            const award: FakeGitlabAward = { id: state.nextId(), noteId: note.id, name, user: state.me(), created_at: state.stamp() };
            state.awards.push(award);
            return { status: 201, body: json.awardJson(award) };
          }),
      },
    ];
  };

  return [
    { method: 'GET', path: ['user'], name: 'currentUser', handle: () => ({ status: 200, body: json.currentUserJson(state.me()) }) },
    {
      // https://docs.gitlab.com/api/users/#list-users: `username` finds one user, in any case.
      method: 'GET',
      path: ['users'],
      name: 'listUsers',
      handle: (_params, _input, query) => {
        const username = query.get('username');
        const users = state.users().filter((u) => username === null || same(u.username, username));
        return { status: 200, page: users.map((u) => json.userJson(u)) };
      },
    },
    {
      method: 'GET',
      path: ['users', ':user_id'],
      name: 'getUser',
      handle: (params) => {
        const id = params['user_id']!;
        const user = /^\d+$/.test(id) ? state.users().find((u) => u.id === Number(id)) : undefined;
        return user ? { status: 200, body: json.singleUserJson(user, state.admin) } : notFound('User');
      },
    },
    {
      method: 'GET',
      path: ['projects', ':id'],
      name: 'getProject',
      handle: (params) => {
        const p = project(params['id']!);
        return p ? { status: 200, body: json.projectJson(p) } : notFound('Project');
      },
    },
    {
      method: 'GET',
      path: ['projects', ':id', 'issues', ':issue_iid'],
      name: 'getIssue',
      handle: (params) =>
        withNoteable('Issue', params, (p, iid, issue) => ({
          status: 200,
          body: json.issueJson(issue as FakeGitlabIssue, p.id, notesOf(p, 'Issue', iid).filter((n) => !n.system).length),
        })),
    },
    {
      method: 'PUT',
      path: ['projects', ':id', 'issues', ':issue_iid'],
      name: 'editIssue',
      // https://docs.gitlab.com/api/issues/#edit-an-issue — `labels` replaces, `add_labels`/`remove_labels` change.
      handle: (params, input) =>
        withNoteable('Issue', params, (p, iid, noteable) => {
          const issue = noteable as FakeGitlabIssue;
          if (input['labels'] !== undefined) issue.labels = listParam(input['labels']);
          for (const label of listParam(input['add_labels'])) if (!issue.labels.includes(label)) issue.labels.push(label);
          const removed = listParam(input['remove_labels']);
          issue.labels = issue.labels.filter((l) => !removed.includes(l));
          if (input['state_event'] === 'close') issue.state = 'closed';
          if (input['state_event'] === 'reopen') issue.state = 'opened';
          return { status: 200, body: json.issueJson(issue, p.id, notesOf(p, 'Issue', iid).length) };
        }),
    },
    {
      method: 'GET',
      path: ['projects', ':id', 'merge_requests', ':merge_request_iid'],
      name: 'getMergeRequest',
      handle: (params) =>
        withNoteable('MergeRequest', params, (p, _iid, mr) => ({ status: 200, body: json.mergeRequestJson(mr as FakeGitlabMergeRequest, p.id) })),
    },
    ...noteRoutes('Issue'),
    ...noteRoutes('MergeRequest'),
    {
      method: 'POST',
      path: ['projects', ':id', 'merge_requests', ':merge_request_iid', 'discussions', ':discussion_id', 'notes'],
      name: 'replyToMergeRequestDiscussion',
      // https://docs.gitlab.com/api/discussions/#add-note-to-existing-merge-request-thread — a reply in a
      // diff thread is itself a DiffNote at the thread's position.
      handle: (params, input) =>
        withNoteable('MergeRequest', params, (p, iid) => {
          const first = notesOf(p, 'MergeRequest', iid).find((n) => n.discussionId === params['discussion_id']);
          if (!first) return notFound();
          const body = bodyOf(input);
          if (typeof body !== 'string') return body;
          const type = first.type === 'DiffNote' ? 'DiffNote' : 'DiscussionNote';
          if (first.type === null) first.type = 'DiscussionNote';
          const note = addNote(p, 'MergeRequest', iid, body, { type, discussionId: first.discussionId, ...(first.position && { position: first.position }) });
          return { status: 201, body: json.noteJson(note, p.id) };
        }),
    },
    {
      method: 'GET',
      path: ['projects', ':id', 'members', 'all', ':user_id'],
      name: 'getMemberAll',
      handle: (params) => {
        const p = project(params['id']!);
        if (!p) return notFound('Project');
        if (!/^\d+$/.test(params['user_id']!)) return invalid('user_id');
        const member = state.members.get(p.path_with_namespace.toLowerCase())?.get(Number(params['user_id']));
        return member ? { status: 200, body: json.memberJson(member.user, member.accessLevel) } : notFound();
      },
    },
    {
      method: 'GET',
      path: ['projects', ':id', 'pipelines', ':pipeline_id', 'jobs'],
      name: 'listPipelineJobs',
      // https://docs.gitlab.com/api/jobs/#list-pipeline-jobs — `scope` is one status or `scope[]` several.
      handle: (params, _input, query) => {
        const p = project(params['id']!);
        if (!p) return notFound('Project');
        const pipeline = state.pipelines.find((x) => same(x.project, p.path_with_namespace) && String(x.id) === params['pipeline_id']);
        if (!pipeline) return notFound();
        const scopes = [...query.getAll('scope'), ...query.getAll('scope[]')];
        const jobs = pipeline.jobs.filter((j) => scopes.length === 0 || scopes.includes(j.status)).sort((a, b) => b.id - a.id);
        return { status: 200, page: jobs.map((j) => json.jobJson(j, pipeline, p.id)) };
      },
    },
    {
      method: 'GET',
      path: ['projects', ':id', 'jobs', ':job_id', 'trace'],
      name: 'getJobTrace',
      // https://docs.gitlab.com/api/jobs/#get-a-log-file — the raw log as text/plain.
      handle: (params) => {
        const p = project(params['id']!);
        if (!p) return notFound('Project');
        const job = state.pipelines
          .filter((x) => same(x.project, p.path_with_namespace))
          .flatMap((x) => x.jobs)
          .find((j) => String(j.id) === params['job_id']);
        if (!job) return notFound();
        if (job.traceForbidden) return forbidden;
        return { status: 200, text: job.trace ?? '' };
      },
    },
  ];
}
