/**
 * Slack's slice of the configuration (`surface-kit/config-slice.ts`). Slack is the chat surface: other
 * surfaces' routes name a Slack channel as their companion place (`slack_channel`), a Slack user who
 * approves is asked there, a schedule may report to a channel, and the console may offer Sign in with
 * Slack.
 */
import { z } from 'zod';
import type { ConfigSlice } from '../../surface-kit/config-slice.js';
import { describeSlack, describeSlackSignIn, slackSummary, slackWarnings } from './describe.js';
import { readSlackEnv, slackEnvShape, slackIsOn, slackSetProblems, SLACK_VARIABLES, type SlackEnv, type SlackSignInConfig } from './env.js';
import { slackChannelId, slackFileSection, type SlackFile } from './file.js';
import { CHANNEL_ID_HINT, SLACK_CHANNEL_ID } from './ids.js';
import { resolveSlack, type SlackSection } from './section.js';

const TURN_SLACK_ON = 'turn Slack on with SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode)';

/** Slack's config slice, the `config` of its module. */
export const slackConfig = {
  variables: SLACK_VARIABLES,
  envShape: slackEnvShape,
  setProblems: slackSetProblems,
  readEnv: readSlackEnv,
  isOn: slackIsOn,
  fileSection: slackFileSection,
  resolve: resolveSlack,
  routes: (file: SlackFile) => [[['slack', 'channels'], file.channels]] as const,
  describe: describeSlack,
  summary: slackSummary,
  warnings: slackWarnings,
  secrets: (slack: SlackSection) => [slack.botToken, slack.signingSecret, slack.appToken],
  companion: {
    key: 'slack_channel',
    schema: slackChannelId,
    neededForApproval: {
      message: 'needs slack_channel on this route: the Approve and Reject buttons are posted in that Slack channel',
      hint: 'add slack_channel: C0123ABCD (a channel the approvers are in), or remove approval',
    },
    whenOff: {
      message: 'names a Slack channel for its runs, but Slack is off (SLACK_BOT_TOKEN is not set): nothing could be posted there',
      hint: `${TURN_SLACK_ON}, or remove slack_channel`,
    },
  },
  approvers: {
    whenOff: { message: 'needs Slack: approvers are asked there (SLACK_BOT_TOKEN is not set)', hint: `${TURN_SLACK_ON}, or remove approval` },
  },
  scheduleNotify: {
    key: 'slack_channel',
    field: 'slackChannel',
    schema: z.string().refine((id) => SLACK_CHANNEL_ID.test(id), { error: `is not a Slack channel ID — ${CHANNEL_ID_HINT}` }),
    whenOff: (schedule: string) => ({
      message: `schedule "${schedule}" reports to a Slack channel, but Slack is off (SLACK_BOT_TOKEN is not set): every message of its runs would fail`,
      hint: `${TURN_SLACK_ON}, or remove notify.slack_channel`,
    }),
  } as const,
  signIn: {
    key: 'slackSignIn',
    resolve: (env: SlackEnv) => env.signIn,
    describe: describeSlackSignIn,
    secrets: (signIn: SlackSignInConfig) => [signIn.clientSecret],
  } as const,
} satisfies ConfigSlice<typeof slackEnvShape, SlackEnv, SlackFile, SlackSection>;
