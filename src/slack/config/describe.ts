/** What `config check` and the start say of Slack: its section with the tokens masked, its summary line, its warnings. */
import { describeRoutes, maskSecret, plural, routeList, type SecretSource } from '../../config-kit/describe-parts.js';
import type { ConfigProblem } from '../../config-kit/problem.js';
import type { SurfaceIsOn } from '../../surface-kit/config-slice.js';
import type { SlackSignInConfig } from './env.js';
import { issueLinkWarnings } from './issue-links.js';
import type { SlackSection } from './section.js';

type SourceOf = (variable: string) => SecretSource | undefined;

/** `config.slack` as `config check` shows it: the tokens and signing secret masked. */
export function describeSlack(slack: SlackSection, source: SourceOf): Record<string, unknown> {
  return {
    ...slack,
    botToken: maskSecret(slack.botToken, source('SLACK_BOT_TOKEN')) ?? null,
    signingSecret: maskSecret(slack.signingSecret, source('SLACK_SIGNING_SECRET')) ?? null,
    appToken: maskSecret(slack.appToken, source('SLACK_APP_TOKEN')) ?? null,
    allowedUsers: [...slack.allowedUsers],
    allowedTeams: [...slack.allowedTeams],
    channels: describeRoutes(slack.channels),
    linksIssuesOf: slack.linksIssuesOf.map(({ surface }) => surface),
  };
}

/** Sign in with Slack as `config check` shows it: the client secret masked. */
export function describeSlackSignIn(signIn: SlackSignInConfig, source: SourceOf): Record<string, unknown> {
  return { clientId: signIn.clientId, clientSecret: maskSecret(signIn.clientSecret, source('SLACK_CLIENT_SECRET')), issuer: signIn.issuer };
}

/** Slack's line of the summary: its mode, channels and who may start runs, or what turns it on. */
export function slackSummary(slack: SlackSection): string {
  if (!slack.enabled) return 'Slack: off — set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode) to turn it on';
  const mode = slack.mode === 'socket' ? 'Socket Mode' : 'HTTP, events at POST /slack/events';
  const teams = slack.allowedTeams.length === 0 ? '' : ` and ${plural(slack.allowedTeams.length, 'allowed team')}`;
  const users =
    slack.allowedUsers.length === 0
      ? `people of this workspace${teams}`
      : `${plural(slack.allowedUsers.length, 'allowed user')}${teams && ` (of this workspace${teams})`}`;
  return `Slack: on (${mode}; channels: ${routeList(slack.channels)}; follow-ups: ${slack.followups}; may start runs: ${users})`;
}

/** A mention link to a tracker that is off: the mention starts its run without the issue. */
export function slackWarnings(slack: SlackSection, label: string, isOn: SurfaceIsOn): ConfigProblem[] {
  return slack.enabled ? issueLinkWarnings(slack.linksIssuesOf, label, isOn) : [];
}
