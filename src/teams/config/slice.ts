/**
 * Teams' slice of the configuration (`surface-kit/config-slice.ts`). Teams is a chat surface: other
 * surfaces' routes name a Teams channel as their companion place (`teams_channel`), a Teams person who
 * approves is asked there, a schedule may report to a channel, and the console offers Sign in with
 * Microsoft on the bot's own Entra app.
 */
import type { ConfigSlice } from '../../surface-kit/config-slice.js';
import { describeMicrosoftSignIn, describeTeams, teamsSummary } from './describe.js';
import { readTeamsEnv, teamsEnvShape, teamsIsOn, teamsSetProblems, TEAMS_VARIABLES, type MicrosoftSignInConfig, type TeamsEnv } from './env.js';
import { teamsChannelId, teamsFileSection, type TeamsFile } from './file.js';
import { resolveTeams, type TeamsSection } from './section.js';

const TURN_TEAMS_ON = 'turn Teams on with TEAMS_CLIENT_ID, TEAMS_CLIENT_SECRET and TEAMS_TENANT_ID (docs/teams.md)';

/** Teams' config slice, the `config` of its module. */
export const teamsConfig = {
  variables: TEAMS_VARIABLES,
  envShape: teamsEnvShape,
  setProblems: teamsSetProblems,
  readEnv: readTeamsEnv,
  isOn: teamsIsOn,
  fileSection: teamsFileSection,
  resolve: resolveTeams,
  routes: (file: TeamsFile) => [[['teams', 'channels'], file.channels]] as const,
  describe: describeTeams,
  summary: teamsSummary,
  warnings: () => [],
  secrets: (teams: TeamsSection) => [teams.clientSecret],
  companion: {
    key: 'teams_channel',
    schema: teamsChannelId,
    neededForApproval: {
      message: 'needs a chat place on this route for its Approve and Reject buttons, such as teams_channel',
      hint: 'add teams_channel: "19:…@thread.tacv2" (a channel the approvers are in), or remove approval',
    },
    whenOff: {
      message: 'names a Teams channel for its runs, but Teams is off (TEAMS_CLIENT_ID is not set): nothing could be posted there',
      hint: `${TURN_TEAMS_ON}, or remove teams_channel`,
    },
  },
  approvers: {
    whenOff: { message: 'needs Teams: its Teams approvers are asked there (TEAMS_CLIENT_ID is not set)', hint: `${TURN_TEAMS_ON}, or remove approval` },
  },
  scheduleNotify: {
    key: 'teams_channel',
    field: 'teamsChannel',
    schema: teamsChannelId,
    whenOff: (schedule: string) => ({
      message: `schedule "${schedule}" reports to a Teams channel, but Teams is off (TEAMS_CLIENT_ID is not set): every message of its runs would fail`,
      hint: `${TURN_TEAMS_ON}, or remove notify.teams_channel`,
    }),
  } as const,
  signIn: {
    key: 'microsoftSignIn',
    resolve: (env: TeamsEnv) => env.signIn,
    describe: describeMicrosoftSignIn,
    secrets: (signIn: MicrosoftSignInConfig) => [signIn.clientSecret],
  } as const,
} satisfies ConfigSlice<typeof teamsEnvShape, TeamsEnv, TeamsFile, TeamsSection>;
