/**
 * The few GraphQL reads we send through the SDK's client. Written by hand because the SDK's model
 * queries ask for (and need) dozens of fields per entity; ours ask only for what we use, and the
 * operation names let a fake (and a reader of Linear's logs) tell them apart. Writes use the SDK's
 * own mutations (`createComment`, `updateComment`, …).
 */

/** An issue by UUID or identifier (`ENG-123`), with its description, team and most recent comments. */
export const ISSUE_QUERY = `query AgentBridgeIssue($id: String!, $comments: Int!) {
  issue(id: $id) {
    id
    identifier
    title
    url
    description
    team { id key }
    comments(last: $comments) { nodes { id body createdAt user { name displayName } botActor { name } } }
  }
}`;

/** Whether a comment exists (a retried create looks for its own client-chosen id first). */
export const COMMENT_QUERY = `query AgentBridgeComment($id: String!) {
  comment(id: $id) { id }
}`;

/** Labels whose name is one of the trigger names (Linear compares case-insensitively with `eqIgnoreCase`). */
export const LABELS_QUERY = `query AgentBridgeLabels($filter: IssueLabelFilter) {
  issueLabels(filter: $filter, first: 250) { nodes { id name } }
}`;

/** Who the API key or token acts as (checked once at start: a refused key stops the start). */
export const VIEWER_QUERY = `query AgentBridgeViewer {
  viewer { id name }
}`;

/** A team's workflow states (for `linear.states` moves). */
export const TEAM_STATES_QUERY = `query AgentBridgeTeamStates($id: String!) {
  team(id: $id) { id key states { nodes { id name type } } }
}`;

/** Teams (all, or those with the given keys) and their workflow states, for `config check`. */
export const TEAMS_QUERY = `query AgentBridgeTeams($filter: TeamFilter) {
  teams(filter: $filter, first: 250) { nodes { id key states { nodes { id name type } } } }
}`;

/** A user's email (the same verified email on Slack makes them one person). */
export const USER_QUERY = `query AgentBridgeUser($id: String!) {
  user(id: $id) { id email active }
}`;

/** A user's roles: whether they may drive the agent (a guest or an app may not, unless listed; `linear/access.ts`). */
export const USER_ROLE_QUERY = `query AgentBridgeUserRole($id: String!) {
  user(id: $id) { id active guest app }
}`;
