/**
 * The shape check of a Linear webhook body (docs/architecture.md §3, docs/linear.md). Hand-written so the
 * reasons name the field. Only what we act on is checked and copied: unknown fields are ignored,
 * unknown `type`s are valid envelopes the caller ignores, and `null` in an optional field counts as
 * absent (Linear sends `null` for empty values).
 */

import { sessionEventFields, type SessionEventFields } from './parse-session-event.js';
import {
  Problem,
  defined,
  type LinearLabel,
  isObject,
  labelArray,
  optionalObject,
  optionalString,
  own,
  requiredString,
  stringArray,
  type Json,
} from './parse-fields.js';

export type LinearAction = 'create' | 'update' | 'remove';

export type { LinearLabel };

export interface LinearIssueData {
  id: string;
  /** e.g. `ENG-123`. */
  identifier: string;
  title: string;
  description?: string;
  url: string;
  teamId?: string;
  team?: { key: string };
  labelIds: string[];
  labels?: LinearLabel[];
  /** The project the issue is in, if any (a route may match by project, `projects`). */
  projectId?: string;
  project?: { id?: string; name?: string };
  updatedAt: string;
}

/** The previous values of the fields an update changed (only those). */
export interface LinearIssueUpdatedFrom {
  labelIds?: string[];
  /** Not documented; used for the names of removed labels when Linear sends it. */
  labels?: LinearLabel[];
  /** Present when the update moved the issue: its previous project, `null` for none. */
  projectId?: string | null;
  updatedAt?: string;
}

export interface LinearCommentData {
  id: string;
  body: string;
  /** Absent for comments on documents or project updates. */
  issueId?: string;
  issue?: { id?: string; identifier?: string; title?: string; url?: string };
  userId?: string;
  user?: { id?: string; name?: string };
  /** Set when an app (e.g. us) wrote the comment. */
  botActor?: Record<string, unknown>;
}

/** Who caused the event, when Linear says (newer deliveries carry a top-level `actor`). */
export interface LinearActor {
  id: string;
  name?: string;
  type?: string;
}

interface EnvelopeMeta {
  url?: string;
  organizationId?: string;
  webhookId?: string;
  /** Milliseconds since the epoch; checked with `checkWebhookTimestamp`. */
  webhookTimestamp: number;
  actor?: LinearActor;
}

export interface LinearIssueWebhook extends EnvelopeMeta {
  type: 'Issue';
  action: LinearAction;
  data: LinearIssueData;
  updatedFrom?: LinearIssueUpdatedFrom;
}

export interface LinearCommentWebhook extends EnvelopeMeta {
  type: 'Comment';
  action: LinearAction;
  data: LinearCommentData;
  updatedFrom?: Record<string, unknown>;
}

/** Any other event (or an Issue/Comment with an action we do not know): valid, and ignored by the caller. */
export interface LinearOtherWebhook extends EnvelopeMeta {
  type: string;
  action: string;
  data: Record<string, unknown>;
  updatedFrom?: Record<string, unknown>;
}

export interface LinearSessionWebhook extends EnvelopeMeta, SessionEventFields {
  type: 'AgentSessionEvent';
  /** `created` | `prompted` (others are ignored). */
  action: string;
  data?: undefined;
  updatedFrom?: undefined;
}

export type LinearWebhook = LinearIssueWebhook | LinearCommentWebhook | LinearSessionWebhook | LinearOtherWebhook;

export type ParsedWebhook = { ok: true; envelope: LinearWebhook } | { ok: false; reason: string };

const ACTIONS: ReadonlySet<string> = new Set<LinearAction>(['create', 'update', 'remove']);

export function isLinearAction(action: string): action is LinearAction {
  return ACTIONS.has(action);
}

export function isIssueWebhook(envelope: LinearWebhook): envelope is LinearIssueWebhook {
  return envelope.type === 'Issue' && isLinearAction(envelope.action);
}

export function isSessionWebhook(envelope: LinearWebhook): envelope is LinearSessionWebhook {
  return envelope.type === 'AgentSessionEvent' && 'agentSession' in envelope;
}

export function isCommentWebhook(envelope: LinearWebhook): envelope is LinearCommentWebhook {
  return envelope.type === 'Comment' && isLinearAction(envelope.action);
}

function issueData(data: Json): LinearIssueData {
  const team = optionalObject(data, 'team', 'data');
  const labels = own(data, 'labels');
  const project = optionalObject(data, 'project', 'data');
  return defined({
    id: requiredString(data, 'id', 'data'),
    identifier: requiredString(data, 'identifier', 'data'),
    title: requiredString(data, 'title', 'data'),
    description: optionalString(data, 'description', 'data'),
    url: requiredString(data, 'url', 'data'),
    teamId: optionalString(data, 'teamId', 'data'),
    team: team ? { key: requiredString(team, 'key', 'data.team') } : undefined,
    labelIds: stringArray(own(data, 'labelIds'), 'data.labelIds'),
    labels: labels === undefined || labels === null ? undefined : labelArray(labels, 'data.labels'),
    projectId: optionalString(data, 'projectId', 'data'),
    project: project ? defined({ id: optionalString(project, 'id', 'data.project'), name: optionalString(project, 'name', 'data.project') }) : undefined,
    updatedAt: requiredString(data, 'updatedAt', 'data'),
  });
}

function issueUpdatedFrom(from: Json): LinearIssueUpdatedFrom {
  const labelIds = own(from, 'labelIds');
  const labels = own(from, 'labels');
  const projectId = own(from, 'projectId');
  if (projectId !== undefined && projectId !== null && typeof projectId !== 'string') throw new Problem('updatedFrom.projectId must be a string or null');
  return defined({
    labelIds: labelIds === undefined || labelIds === null ? undefined : stringArray(labelIds, 'updatedFrom.labelIds'),
    labels: labels === undefined || labels === null ? undefined : labelArray(labels, 'updatedFrom.labels'),
    projectId,
    updatedAt: optionalString(from, 'updatedAt', 'updatedFrom'),
  });
}

function commentData(data: Json): LinearCommentData {
  const issue = optionalObject(data, 'issue', 'data');
  const user = optionalObject(data, 'user', 'data');
  return defined({
    id: requiredString(data, 'id', 'data'),
    body: requiredString(data, 'body', 'data'),
    issueId: optionalString(data, 'issueId', 'data'),
    issue: issue
      ? defined({
          id: optionalString(issue, 'id', 'data.issue'),
          identifier: optionalString(issue, 'identifier', 'data.issue'),
          title: optionalString(issue, 'title', 'data.issue'),
          url: optionalString(issue, 'url', 'data.issue'),
        })
      : undefined,
    userId: optionalString(data, 'userId', 'data'),
    user: user ? defined({ id: optionalString(user, 'id', 'data.user'), name: optionalString(user, 'name', 'data.user') }) : undefined,
    botActor: optionalObject(data, 'botActor', 'data'),
  });
}

/** The top-level `actor`, if it is usable; a strange one is dropped, not rejected (we only use it for names). */
function actorOf(body: Json): LinearActor | undefined {
  const actor = own(body, 'actor');
  if (!isObject(actor) || typeof actor['id'] !== 'string') return undefined;
  return defined({
    id: actor['id'],
    name: typeof actor['name'] === 'string' ? actor['name'] : undefined,
    type: typeof actor['type'] === 'string' ? actor['type'] : undefined,
  });
}

function envelopeOf(body: unknown): LinearWebhook {
  if (!isObject(body)) throw new Problem('body must be a JSON object');
  const action = requiredString(body, 'action', 'body');
  const type = requiredString(body, 'type', 'body');
  const data = own(body, 'data');
  // Issue and Comment events carry the entity in `data`; some other types (agent sessions, app events) have none.
  if (!isObject(data) && (type === 'Issue' || type === 'Comment' || (data !== undefined && data !== null))) throw new Problem('body.data must be an object');
  const updatedFrom = optionalObject(body, 'updatedFrom', 'body');
  const timestamp = own(body, 'webhookTimestamp');
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) throw new Problem('body.webhookTimestamp must be a number');
  const meta: EnvelopeMeta = defined({
    url: optionalString(body, 'url', 'body'),
    organizationId: optionalString(body, 'organizationId', 'body'),
    webhookId: optionalString(body, 'webhookId', 'body'),
    webhookTimestamp: timestamp,
    actor: actorOf(body),
  });
  if (type === 'AgentSessionEvent') return defined({ ...meta, type, action, ...sessionEventFields(body) });
  if (!isObject(data)) return defined({ ...meta, type, action, data: {}, updatedFrom });
  if (isLinearAction(action) && type === 'Issue') {
    return defined({ ...meta, type, action, data: issueData(data), updatedFrom: updatedFrom && issueUpdatedFrom(updatedFrom) });
  }
  if (isLinearAction(action) && type === 'Comment') {
    return defined({ ...meta, type, action, data: commentData(data), updatedFrom });
  }
  return defined({ ...meta, type, action, data, updatedFrom });
}

/** Parses and checks a webhook body (the raw text, after the signature check). */
export function parseLinearWebhook(text: string): ParsedWebhook {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
  try {
    return { ok: true, envelope: envelopeOf(body) };
  } catch (error) {
    if (error instanceof Problem) return { ok: false, reason: error.message };
    throw error;
  }
}
