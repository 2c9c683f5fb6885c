/**
 * What a GitLab delivery asks for, decided from the payload alone: a trigger label added to an issue
 * (or an issue opened with one) starts a run, removing it cancels; a handle note on an issue starts a
 * run, steers the issue's run or stops it. Our own notes, other bots' and system notes are never acted
 * on; whether a person may (Developer access or more) is the worker's to ask (`access.ts`), unless
 * `gitlab.allowed_users` names them. What a run's merge request says is `merge-request-acts.ts`'s;
 * `normalise.ts` tells which a delivery is.
 */
import { intentOf } from '../core/intake/keywords.js';
import { oneLine } from '../core/quote.js';
import { limitTitle } from '../core/title.js';
import type { Requester, TriggerInput } from '../core/ports/triggers.js';
import type { GitlabPayload } from './parse-webhook.js';

export interface GitlabTriggerConfig {
  handle: string;
  /** Project path lower-cased (or `*`) → a route exists. */
  projects: Readonly<Record<string, unknown>>;
  /** Label name lower-cased → a route exists. */
  labels: Readonly<Record<string, unknown>>;
  /** A route's companion places, by project and by label (lower-cased keys); absent: none. */
  companions?: { projects: Readonly<Record<string, readonly string[]>>; labels: Readonly<Record<string, readonly string[]>> };
  /** Usernames, lower-cased. */
  allowedUsers: readonly string[];
  /** `gitlab.merge_requests`: what on a run's own merge request reaches the run. */
  mergeRequests: 'none' | 'mentions' | 'reviews';
  /** `gitlab.pipeline_failures`: how many failed pipelines of its merge request a run is told (0: none). */
  pipelineFailures: number;
}

/** A note we act on, and who wrote it: where the notifier awards `eyes` and `rocket`, and whose access the worker asks. */
export interface GitlabReference {
  project: string;
  kind: 'issues' | 'merge_requests';
  iid: number;
  note?: number;
  /** The GitLab user id of the requester (the members API asks by id). */
  userId: number;
}

/**
 * What a delivery asks for: `needsRun`, only when the place has a run; `ifLinked`, what it is when it
 * has one; `pipelineFailure`, one of the run's `gitlab.pipeline_failures` places it must take. `closed`:
 * a merge request merged or closed, told once in every place of its run (`name` as GitLab spells it).
 */
export type GitlabAct =
  | { kind: 'trigger'; input: TriggerInput; needsRun: boolean; ifLinked?: TriggerInput; pipelineFailure?: true; at?: string | null | undefined }
  | { kind: 'closed'; place: string; name: string; merged: boolean; url: string; by: string }
  | { kind: 'ignored'; reason: string };

/** Who a failed pipeline's follow-up is from: no person (a username never holds a colon). */
export const PIPELINES_REQUESTER = 'gitlab:pipelines';

/** Who we are (`GET /user`): our own notes are never acted on. */
export interface Self {
  id: number;
}

/** A GitLab place: `gitlab:<group/project>#<iid>`, an issue (lower-cased: GitLab's paths ignore case). */
export function gitlabIssuePlace(project: string, iid: number): string {
  return `gitlab:${project.toLowerCase()}#${iid}`;
}

/** Whether the project is served: it has a route, or `*` stands for every other. */
export function isServedProject(project: string, config: Pick<GitlabTriggerConfig, 'projects'>): boolean {
  return Object.hasOwn(config.projects, project.toLowerCase()) || Object.hasOwn(config.projects, '*');
}

/**
 * Bot users GitLab makes: project and group access tokens' (`project_42_bot_…`), service accounts, and
 * the instance's own helpers. Hooks carry no bot flag, so the username is what tells.
 */
const BOT_USERNAME = /^(?:(?:project|group)_\d+_bot(?:_[0-9a-f]+)?\d*|service_account_.+|support-bot|alert-bot|ghost|gitlab-(?:admin-)?bot|duo-.+-bot)$/i;

/** Why `user` is never acted on (us, a bot), if so. */
export function notAPerson(user: { id: number; username: string }, self: Self | undefined): string | undefined {
  if (self && user.id === self.id) return 'our own note';
  if (BOT_USERNAME.test(user.username)) return 'written by a bot';
  return undefined;
}

/** The first word is the handle: the rest, else undefined. */
export function addressedTo(body: string, handle: string): string | undefined {
  const match = /^(\S+)([\s\S]*)$/.exec(body.trim());
  const word = (match?.[1] ?? '').toLowerCase().replace(/[.,:;!]+$/, '');
  return word !== '' && word === handle.trim().toLowerCase() ? (match?.[2] ?? '').trim() : undefined;
}

/** The person a request is from, by username (lower-cased for matching). */
export const requesterOf = (user: { username: string }): Requester => ({ platform: 'gitlab', id: user.username.toLowerCase(), name: user.username });
/** Whether the worker must ask GitLab if `user` may act: unless `gitlab.allowed_users` names them. */
export const toCheck = (user: { username: string }, config: Pick<GitlabTriggerConfig, 'allowedUsers'>) =>
  config.allowedUsers.includes(user.username.toLowerCase()) ? {} : { checkRequester: true as const };

/** A start's places: the issue, and the companion places of its route (the label's over the project's over `*`'s). */
export function startPlaces(anchor: string, project: string, label: string | undefined, config: GitlabTriggerConfig): string[] {
  const companions = config.companions;
  const lower = project.toLowerCase();
  const places = !companions
    ? undefined
    : label !== undefined && Object.hasOwn(config.labels, label)
      ? companions.labels[label]
      : Object.hasOwn(config.projects, lower)
        ? companions.projects[lower]
        : Object.hasOwn(config.projects, '*')
          ? companions.projects['*']
          : undefined;
  return [anchor, ...(places ?? [])];
}

const titles = (list: ReadonlyArray<{ title: string }> | null | undefined) => (list ?? []).map((l) => l.title.trim().toLowerCase());

/** The trigger labels an issue event added and removed: its label change, or the labels it was opened with. */
export function labelChange(payload: GitlabPayload<'issue'>, config: Pick<GitlabTriggerConfig, 'labels'>): { added?: string; removed?: string } {
  const attributes = payload.object_attributes;
  const trigger = (name: string) => Object.hasOwn(config.labels, name);
  if (attributes.action === 'open') {
    const opened = titles(attributes.labels ?? payload.labels);
    return { ...(opened.find(trigger) !== undefined && { added: opened.find(trigger) }) };
  }
  const change = payload.changes?.labels;
  if (attributes.action !== 'update' || !change) return {};
  const before = titles(change.previous);
  const after = titles(change.current);
  const added = after.find((name) => trigger(name) && !before.includes(name));
  const removed = before.find((name) => trigger(name) && !after.includes(name));
  return { ...(added !== undefined && { added }), ...(removed !== undefined && { removed }) };
}

export function issueAct(payload: GitlabPayload<'issue'>, config: GitlabTriggerConfig, self: Self | undefined): GitlabAct {
  const { added, removed } = labelChange(payload, config);
  if (added === undefined && removed === undefined) return { kind: 'ignored', reason: 'no trigger label added or removed' };
  const project = payload.project.path_with_namespace;
  if (!isServedProject(project, config)) return { kind: 'ignored', reason: 'project has no route' };
  const person = notAPerson(payload.user, self);
  if (person) return { kind: 'ignored', reason: person };
  const attributes = payload.object_attributes;
  const anchor = gitlabIssuePlace(project, attributes.iid);
  const requester = requesterOf(payload.user);
  const reference: GitlabReference = { project: project.toLowerCase(), kind: 'issues', iid: attributes.iid, userId: payload.user.id };
  const check = toCheck(payload.user, config);
  // The act is the label change itself (issue, label, GitLab's time): redelivered under another delivery id, it is the same act.
  const act = `${project.toLowerCase()}#${attributes.iid}:${added ?? removed}:${attributes.updated_at ?? ''}`;
  if (added === undefined) {
    return {
      kind: 'trigger',
      needsRun: true,
      at: attributes.updated_at,
      input: { kind: 'cancel', key: `gitlab:unlabeled:${act}`, source: 'gitlab', anchor, payload: { requester, reference, ...check } },
    };
  }
  const ref = `${project}#${attributes.iid}`;
  return {
    kind: 'trigger',
    needsRun: false,
    at: attributes.updated_at,
    input: {
      kind: 'start',
      key: `gitlab:labeled:${act}`,
      source: 'gitlab',
      anchor,
      payload: {
        prompt: `Work on the GitLab issue ${ref}: ${oneLine(attributes.title)}\nURL: ${oneLine(attributes.url)}`,
        title: limitTitle(`${ref}: ${oneLine(attributes.title)}`),
        origin: { source: 'gitlab', project: project.toLowerCase(), label: added },
        destinations: startPlaces(anchor, project, added, config),
        requester,
        ticket: { ref, url: attributes.url, from: 'GitLab' },
        reference,
        unlessActive: true,
        ...check,
      },
    },
  };
}

export function noteAct(payload: GitlabPayload<'note'>, config: GitlabTriggerConfig, self: Self | undefined): GitlabAct {
  const note = payload.object_attributes;
  if (note.system === true) return { kind: 'ignored', reason: 'a system note' };
  if (note.action !== undefined && note.action !== 'create') return { kind: 'ignored', reason: 'an edited note is not acted on' };
  if (note.noteable_type !== 'Issue' || !payload.issue) {
    return { kind: 'ignored', reason: `a note on a ${oneLine(note.noteable_type).slice(0, 40)} is not acted on` };
  }
  const rest = addressedTo(note.note, config.handle);
  if (rest === undefined) return { kind: 'ignored', reason: 'note not addressed to us' };
  const person = notAPerson(payload.user, self);
  if (person) return { kind: 'ignored', reason: person };
  const project = payload.project.path_with_namespace;
  if (!isServedProject(project, config)) return { kind: 'ignored', reason: 'project has no route' };
  const issue = payload.issue;
  const anchor = gitlabIssuePlace(project, issue.iid);
  const key = `gitlab:note:${note.id}`;
  const requester = requesterOf(payload.user);
  const reference: GitlabReference = { project: project.toLowerCase(), kind: 'issues', iid: issue.iid, note: note.id, userId: payload.user.id };
  const check = toCheck(payload.user, config);
  const intent = intentOf(rest);
  if (intent.kind === 'stop') {
    return {
      kind: 'trigger',
      needsRun: true,
      at: note.created_at,
      input: { kind: 'cancel', key, source: 'gitlab', anchor, payload: { requester, reference, ...check } },
    };
  }
  const words = intent.text;
  const ref = `${project}#${issue.iid}`;
  const issueLines = `GitLab issue ${ref}: ${oneLine(issue.title)}\nURL: ${oneLine(issue.url)}`;
  const steer: TriggerInput | undefined =
    intent.kind === 'new' || !words
      ? undefined
      : {
          kind: 'followup',
          key,
          source: 'gitlab',
          anchor,
          payload: { message: words, requester, reference, heardAs: { what: 'a note on the issue', link: note.url }, ...check },
        };
  return {
    kind: 'trigger',
    needsRun: false,
    at: note.created_at,
    ...(steer && { ifLinked: steer }),
    input: {
      kind: 'start',
      key,
      source: 'gitlab',
      anchor,
      payload: {
        prompt: words ? `${words}\n\n${issueLines}` : `Work on the ${issueLines}`,
        title: limitTitle(`${ref}: ${oneLine(issue.title)}`),
        origin: { source: 'gitlab', project: project.toLowerCase() },
        destinations: startPlaces(anchor, project, undefined, config),
        requester,
        ticket: { ref, url: issue.url, from: 'GitLab' },
        reference,
        // A handle note on an issue with a run steers it; `new` starts another.
        followupIfLinked: intent.kind !== 'new',
        ...check,
      },
    },
  };
}
