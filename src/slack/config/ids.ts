/** The shapes of the Slack ids the configuration names, and what is said of an id of another shape. */
import type { PersonIdShape } from '../../surface-kit/person-ids.js';

/** Slack conversation IDs: public (C), private (G) channels and DMs (D). */
export const SLACK_CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
/** Slack user IDs (U…, W… on Enterprise Grid). */
export const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;
/** Slack organisations: a workspace (team, T…) or an Enterprise Grid org (E…). */
export const SLACK_TEAM_ID = /^[TE][A-Z0-9]{2,}$/;

export const CHANNEL_ID_HINT =
  'use the channel ID (e.g. C0123ABCD: open the channel, click its name, the ID is at the bottom of "About"), or "*" for every other channel and DMs';

/** Slack's users as the bridge's people: their ids stand bare (`U0123ABCD`), as they always did in config files and stored rows. */
export const SLACK_PERSON_IDS: PersonIdShape = {
  isUserId: (id) => SLACK_USER_ID.test(id) && id.length <= 40,
  bare: true,
  example: 'U0123ABCD',
  idName: 'Slack user ID',
  whereToFind: 'profile → ⋮ → Copy member ID',
  normalise: (typed) => typed.toUpperCase(),
};
