/**
 * The records a fake GitLab keeps, and the JSON its REST v4 API answers for them, shaped as GitLab's
 * API docs show them (only the fields a client reads, and a few it does not, so unknown fields are
 * exercised). Times are ISO 8601 with milliseconds, as the REST API writes them.
 */

type Json = Record<string, unknown>;

/** A GitLab user. Project and group access tokens act as bot users named `project_<id>_bot_<hex>`. */
export interface FakeGitlabUser {
  id: number;
  username: string;
  name: string;
  bot?: boolean;
  /** `active`, `blocked`, … (`ghost` is the placeholder for deleted users). */
  state?: string;
  email?: string;
  /** Chosen by the user among their verified emails; shown to anyone on their profile (`GET /users/:id`). */
  public_email?: string;
  /** Whether `email` was confirmed (`confirmed_at`, shown to administrators only). Default true. */
  confirmed?: boolean;
}

export interface FakeGitlabProject {
  id: number;
  /** `group/subgroup/project`, as written in web URLs. */
  path_with_namespace: string;
  default_branch?: string;
}

export interface FakeGitlabIssue {
  project: string;
  iid: number;
  title: string;
  description: string | null;
  labels: string[];
  state: 'opened' | 'closed';
  author: FakeGitlabUser;
  confidential?: boolean;
}

export interface FakeGitlabMergeRequest {
  project: string;
  iid: number;
  title: string;
  description: string | null;
  state: 'opened' | 'closed' | 'merged' | 'locked';
  source_branch: string;
  target_branch: string;
  author: FakeGitlabUser;
  labels?: string[];
}

export type NoteableType = 'Issue' | 'MergeRequest';

/** A diff note's place: https://docs.gitlab.com/api/discussions/#create-a-new-thread-in-the-merge-request-diff */
export interface FakeGitlabPosition {
  base_sha: string;
  start_sha: string;
  head_sha: string;
  old_path: string;
  new_path: string;
  position_type: 'text';
  old_line: number | null;
  new_line: number | null;
}

export interface FakeGitlabNote {
  id: number;
  project: string;
  noteableType: NoteableType;
  noteableIid: number;
  body: string;
  author: FakeGitlabUser;
  /** `null` for a plain note, `DiscussionNote` in a thread, `DiffNote` on a line of the diff. */
  type: null | 'DiscussionNote' | 'DiffNote';
  discussionId: string;
  position?: FakeGitlabPosition;
  system: boolean;
  internal: boolean;
  created_at: string;
  updated_at: string;
}

export interface FakeGitlabAward {
  id: number;
  noteId: number;
  name: string;
  user: FakeGitlabUser;
  created_at: string;
}

export interface FakeGitlabJob {
  id: number;
  name: string;
  stage: string;
  status: 'failed' | 'success' | 'canceled' | 'skipped' | 'running' | 'pending' | 'created' | 'manual';
  failure_reason?: string;
  allow_failure?: boolean;
  /** The job's log, as `GET /jobs/:id/trace` answers it. */
  trace?: string;
  /** The token may not read this job's log (a Guest on a private project): 403. */
  traceForbidden?: boolean;
}

export interface FakeGitlabPipeline {
  project: string;
  id: number;
  status: string;
  ref: string;
  sha: string;
  jobs: FakeGitlabJob[];
}

/** GitLab's access levels: https://docs.gitlab.com/api/members/#roles */
export const ACCESS = { none: 0, minimal: 5, guest: 10, planner: 15, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;

/** The emoji names the fake accepts; GitLab accepts any name in its emoji set. */
export const EMOJI = new Set(['eyes', 'rocket', 'thumbsup', 'thumbsdown', 'white_check_mark', 'x', 'tada', 'heart', 'hourglass', 'warning', 'robot']);

/** Builds the JSON GitLab answers, given the instance's web base (its `GITLAB_URL`). */
export function shapes(web: () => string) {
  const userJson = (u: FakeGitlabUser): Json => ({
    id: u.id,
    username: u.username,
    name: u.name,
    state: u.state ?? 'active',
    locked: false,
    avatar_url: `${web()}/uploads/-/system/user/avatar/${u.id}/avatar.png`,
    web_url: `${web()}/${u.username}`,
  });
  const references = (project: string, sign: '#' | '!', iid: number) => ({
    short: `${sign}${iid}`,
    relative: `${sign}${iid}`,
    full: `${project}${sign}${iid}`,
  });
  return {
    userJson,
    /** `GET /user`: https://docs.gitlab.com/api/users/#retrieve-the-current-user */
    currentUserJson: (u: FakeGitlabUser): Json => ({
      ...userJson(u),
      bot: u.bot ?? false,
      email: u.email ?? `${u.username}@example.com`,
      created_at: '2026-01-05T09:00:00.000Z',
      is_admin: false,
      two_factor_enabled: false,
    }),
    /**
     * `GET /users/:id`: https://docs.gitlab.com/api/users/#retrieve-a-single-user: `public_email` for
     * anyone (empty when none was chosen), the primary `email` and `confirmed_at` for administrators only.
     */
    singleUserJson: (u: FakeGitlabUser, asAdmin: boolean): Json => ({
      ...userJson(u),
      bot: u.bot ?? false,
      public_email: u.public_email ?? '',
      created_at: '2026-01-05T09:00:00.000Z',
      ...(asAdmin && {
        email: u.email ?? `${u.username}@example.com`,
        confirmed_at: u.confirmed === false ? null : '2026-01-05T09:01:00.000Z',
        is_admin: false,
      }),
    }),
    projectJson: (p: FakeGitlabProject): Json => ({
      id: p.id,
      name: p.path_with_namespace.split('/').at(-1),
      path: p.path_with_namespace.split('/').at(-1),
      path_with_namespace: p.path_with_namespace,
      name_with_namespace: p.path_with_namespace.split('/').join(' / '),
      default_branch: p.default_branch ?? 'main',
      visibility: 'private',
      web_url: `${web()}/${p.path_with_namespace}`,
      namespace: { full_path: p.path_with_namespace.split('/').slice(0, -1).join('/') },
    }),
    /** https://docs.gitlab.com/api/issues/#single-project-issue */
    issueJson: (i: FakeGitlabIssue, projectId: number, userNotes: number): Json => ({
      id: 70_000 + i.iid,
      iid: i.iid,
      project_id: projectId,
      title: i.title,
      description: i.description,
      state: i.state,
      labels: [...i.labels],
      author: userJson(i.author),
      confidential: i.confidential ?? false,
      user_notes_count: userNotes,
      web_url: `${web()}/${i.project}/-/issues/${i.iid}`,
      references: references(i.project, '#', i.iid),
      created_at: '2026-03-02T10:00:00.000Z',
      updated_at: '2026-03-02T10:00:00.000Z',
    }),
    /** https://docs.gitlab.com/api/merge_requests/#get-single-mr */
    mergeRequestJson: (m: FakeGitlabMergeRequest, projectId: number): Json => ({
      id: 80_000 + m.iid,
      iid: m.iid,
      project_id: projectId,
      title: m.title,
      description: m.description,
      state: m.state,
      source_branch: m.source_branch,
      target_branch: m.target_branch,
      labels: [...(m.labels ?? [])],
      author: userJson(m.author),
      draft: false,
      merged_at: m.state === 'merged' ? '2026-03-02T12:00:00.000Z' : null,
      web_url: `${web()}/${m.project}/-/merge_requests/${m.iid}`,
      references: references(m.project, '!', m.iid),
    }),
    /** https://docs.gitlab.com/api/notes/ — `position` only on a DiffNote. */
    noteJson: (n: FakeGitlabNote, projectId: number): Json => ({
      id: n.id,
      type: n.type,
      body: n.body,
      attachment: null,
      author: userJson(n.author),
      created_at: n.created_at,
      updated_at: n.updated_at,
      system: n.system,
      noteable_id: (n.noteableType === 'Issue' ? 70_000 : 80_000) + n.noteableIid,
      noteable_type: n.noteableType,
      noteable_iid: n.noteableIid,
      project_id: projectId,
      resolvable: n.type !== null,
      confidential: n.internal,
      internal: n.internal,
      ...(n.position && { position: n.position, commit_id: null }),
    }),
    /** https://docs.gitlab.com/api/emoji_reactions/#add-a-new-emoji-reaction-to-a-comment */
    awardJson: (a: FakeGitlabAward): Json => ({
      id: a.id,
      name: a.name,
      user: userJson(a.user),
      created_at: a.created_at,
      updated_at: a.created_at,
      awardable_id: a.noteId,
      awardable_type: 'Note',
    }),
    /** https://docs.gitlab.com/api/members/#get-a-member-of-a-group-or-project-including-inherited-and-invited-members */
    memberJson: (u: FakeGitlabUser, accessLevel: number): Json => ({
      ...userJson(u),
      access_level: accessLevel,
      created_at: '2026-01-05T09:00:00.000Z',
      expires_at: null,
      membership_state: 'active',
    }),
    /** https://docs.gitlab.com/api/jobs/#list-pipeline-jobs */
    jobJson: (j: FakeGitlabJob, p: FakeGitlabPipeline, projectId: number): Json => ({
      id: j.id,
      name: j.name,
      stage: j.stage,
      status: j.status,
      ref: p.ref,
      tag: false,
      allow_failure: j.allow_failure ?? false,
      failure_reason: j.status === 'failed' ? (j.failure_reason ?? 'script_failure') : undefined,
      created_at: '2026-03-02T11:00:00.000Z',
      started_at: '2026-03-02T11:00:05.000Z',
      finished_at: '2026-03-02T11:01:05.000Z',
      duration: 60,
      web_url: `${web()}/${p.project}/-/jobs/${j.id}`,
      pipeline: { id: p.id, project_id: projectId, ref: p.ref, sha: p.sha, status: p.status },
    }),
  };
}
