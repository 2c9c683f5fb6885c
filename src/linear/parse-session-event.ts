/**
 * The shape check of Linear's `AgentSessionEvent` (its native agent platform): sent when someone
 * mentions or delegates an issue to the app (`created`) and when they prompt it again (`prompted`;
 * a stop request carries `agentActivity.signal: "stop"`). Only what we act on is checked and copied.
 */
import { Problem, defined, isObject, optionalObject, optionalString, own, requiredString, type Json } from './parse-fields.js';

export interface LinearSessionIssue {
  id: string;
  identifier: string;
  title: string;
  url?: string;
  description?: string;
  team?: { key: string };
}

export interface LinearAgentSession {
  id: string;
  /** The issue the session is about (absent for sessions outside issues, which we ignore). */
  issue?: LinearSessionIssue;
  /** The comment that mentioned the app, when it started from one. */
  comment?: { id: string; body?: string };
  creator?: { id: string; name?: string };
}

export interface LinearAgentActivity {
  id: string;
  /** The prompt's text (`content.body`). */
  body?: string;
  /** `stop` when the person asked the agent to stop. */
  signal?: string;
  userId?: string;
}

export interface SessionEventFields {
  agentSession: LinearAgentSession;
  agentActivity?: LinearAgentActivity;
  /** Linear's own summary of the issue and thread for the agent (formatted text). */
  promptContext?: string;
}

function sessionIssue(issue: Json): LinearSessionIssue {
  const team = optionalObject(issue, 'team', 'agentSession.issue');
  return defined({
    id: requiredString(issue, 'id', 'agentSession.issue'),
    identifier: requiredString(issue, 'identifier', 'agentSession.issue'),
    title: requiredString(issue, 'title', 'agentSession.issue'),
    url: optionalString(issue, 'url', 'agentSession.issue'),
    description: optionalString(issue, 'description', 'agentSession.issue'),
    team: team ? { key: requiredString(team, 'key', 'agentSession.issue.team') } : undefined,
  });
}

/** The session-specific fields of an `AgentSessionEvent` body; throws a `Problem` naming the field. */
export function sessionEventFields(body: Json): SessionEventFields {
  const session = own(body, 'agentSession');
  if (!isObject(session)) throw new Problem('body.agentSession must be an object');
  const issue = optionalObject(session, 'issue', 'agentSession');
  const comment = optionalObject(session, 'comment', 'agentSession');
  const creator = optionalObject(session, 'creator', 'agentSession');
  const activity = optionalObject(body, 'agentActivity', 'body');
  const content = activity ? optionalObject(activity, 'content', 'agentActivity') : undefined;
  return defined({
    agentSession: defined({
      id: requiredString(session, 'id', 'agentSession'),
      issue: issue ? sessionIssue(issue) : undefined,
      comment: comment
        ? defined({ id: requiredString(comment, 'id', 'agentSession.comment'), body: optionalString(comment, 'body', 'agentSession.comment') })
        : undefined,
      creator: creator
        ? defined({ id: requiredString(creator, 'id', 'agentSession.creator'), name: optionalString(creator, 'name', 'agentSession.creator') })
        : undefined,
    }),
    agentActivity: activity
      ? defined({
          id: requiredString(activity, 'id', 'agentActivity'),
          body: content ? optionalString(content, 'body', 'agentActivity.content') : undefined,
          signal: optionalString(activity, 'signal', 'agentActivity'),
          userId: optionalString(activity, 'userId', 'agentActivity'),
        })
      : undefined,
    promptContext: optionalString(body, 'promptContext', 'body'),
  });
}
