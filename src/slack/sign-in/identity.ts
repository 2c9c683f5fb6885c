/**
 * Who Sign in with Slack signed in, from the claims of Slack's id_token
 * (https://api.slack.com/authentication/sign-in-with-slack): the Slack user id is the person id
 * everywhere, the team id their workspace.
 */
import type { IdTokenClaims } from '../../surface-kit/openid-sign-in.js';
import { SignInRefused, type SignedInIdentity } from '../../surface-kit/sign-in-provider.js';

const USER_ID_CLAIM = 'https://slack.com/user_id';
const TEAM_ID_CLAIM = 'https://slack.com/team_id';

/** The person the checked id_token names; throws SignInRefused when it names no Slack user. */
export function slackIdentity(claims: IdTokenClaims): SignedInIdentity {
  const personId = claims[USER_ID_CLAIM] ?? claims['sub'];
  if (typeof personId !== 'string' || !/^[UW][A-Z0-9]{2,}$/.test(personId)) throw new SignInRefused('the id_token names no Slack user');
  const team = claims[TEAM_ID_CLAIM];
  const name = [claims['name'], claims['given_name']].find((value): value is string => typeof value === 'string' && value.trim() !== '')?.trim() ?? personId;
  return { personId, name, workspace: typeof team === 'string' && team !== '' ? team : undefined };
}
