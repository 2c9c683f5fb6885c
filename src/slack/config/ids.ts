/** The shapes of the Slack ids the configuration names, and what is said of an id of another shape. */

/** Slack conversation IDs: public (C), private (G) channels and DMs (D). */
export const SLACK_CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
/** Slack user IDs (U…, W… on Enterprise Grid). */
export const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;
/** Slack organisations: a workspace (team, T…) or an Enterprise Grid org (E…). */
export const SLACK_TEAM_ID = /^[TE][A-Z0-9]{2,}$/;

export const CHANNEL_ID_HINT =
  'use the channel ID (e.g. C0123ABCD: open the channel, click its name, the ID is at the bottom of "About"), or "*" for every other channel and DMs';

/** Said of a person (`slack.allowed_users`, `console.admins`) named otherwise than by a Slack user ID. */
export const NOT_A_USER_ID = 'is not a Slack user ID — use IDs such as U0123ABCD (profile → ⋮ → Copy member ID), not names';
