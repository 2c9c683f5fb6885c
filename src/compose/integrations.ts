/**
 * The integrations the composition root plugs in: each is built from the validated config and loaded
 * lazily (Bolt and the Linear SDK are large and unused when their platform is off), and the run API is
 * either the configured one or the built-in emulator.
 */
import type { AppConfig } from '../config/types.js';
import type { Logger } from '../core/ports/logger.js';
import type { ApprovalDesk } from '../core/approvals/approval-desk.js';
import type { IntakeService } from '../core/intake/intake-service.js';
import type { SlackParts } from '../slack/slack-app.js';
import type { Store } from '../core/ports/store.js';
import { keyPageUrl } from '../people/key-page.js';
import { startBuiltInEmulator, type BuiltInEmulator } from './built-in-emulator.js';

/** The Slack integration when configured (loaded lazily: Bolt is large and unused when Slack is off). */
export async function slackIntegration(
  config: AppConfig,
  intake: IntakeService,
  store: Store,
  logger: Logger,
  access: SlackParts['access'],
  approvals?: Pick<ApprovalDesk, 'decide'>,
) {
  const slack = config.slack;
  if (!slack.enabled || !slack.botToken) return undefined;
  const transport =
    slack.mode === 'socket' && slack.appToken
      ? ({ kind: 'socket', appToken: slack.appToken } as const)
      : slack.signingSecret
        ? ({ kind: 'http', signingSecret: slack.signingSecret } as const)
        : undefined;
  // The config schema already refuses a bot token without either; this keeps the types honest.
  if (!transport) throw new Error('Slack needs SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode) with SLACK_BOT_TOKEN');
  const { startSlack } = await import('../slack/index.js');
  return startSlack(
    {
      botToken: slack.botToken,
      transport,
      apiUrl: slack.apiUrl,
      followups: slack.followups,
      context: slack.context,
      admins: config.console.admins,
      keyPageUrl: keyPageUrl(config.http.publicUrl),
      channels: slack.channels,
      unfurlDomains: slack.unfurlDomains,
      triggers: slack.triggers,
      attribution: config.people.attribution,
    },
    { intake, store, access, logger, ...(approvals && { approvals }) },
  );
}

/** The Linear integration when configured (loaded lazily: the SDK is ~3 MB and unused when Linear is off). */
export async function linearIntegration(config: AppConfig, intake: IntakeService, store: Store, logger: Logger, now: () => number) {
  const linear = config.linear;
  const credentials = linear.accessToken ? { accessToken: linear.accessToken } : linear.apiKey ? { apiKey: linear.apiKey } : undefined;
  // A slack_channel while Slack is off, or a link to a tracker that is off, is refused or warned about by the config.
  if (!linear.enabled || !credentials || !linear.webhookSecret) return undefined;
  const { startLinear } = await import('../linear/index.js');
  return startLinear(
    {
      credentials,
      webhookSecret: linear.webhookSecret,
      apiUrl: linear.apiUrl,
      handle: linear.handle,
      followups: linear.followups,
      context: linear.context,
      cancelOnLabelRemoved: linear.cancelOnLabelRemoved,
      labels: linear.labels,
      slackChannels: config.slack.enabled ? linear.slackChannels : {},
      projects: linear.projects,
      teams: linear.teams,
      states: linear.states,
      allowedUsers: linear.allowedUsers,
    },
    intake,
    store,
    logger.child({ component: 'linear' }),
    now,
  );
}

/** The GitHub App integration when configured (Octokit loaded lazily). */
export async function githubIntegration(config: AppConfig, intake: IntakeService, store: Store, logger: Logger, now: () => number) {
  const github = config.github;
  if (!github.enabled || !github.appId || !github.privateKey || !github.webhookSecret) return undefined;
  const { startGithub } = await import('../github/index.js');
  return startGithub(
    {
      appId: github.appId,
      privateKey: github.privateKey,
      webhookSecret: github.webhookSecret,
      apiUrl: github.apiUrl,
      handle: github.handle,
      repos: github.repos,
      labels: github.labels,
      // Without Slack a route's slack_channel has nowhere to go (as Linear's and Jira's).
      ...(config.slack.enabled && { slackChannels: github.slackChannels }),
      allowedUsers: github.allowedUsers,
      pullRequests: github.pullRequests,
      ciFailures: github.ciFailures,
      dedupeRetentionMs: config.intake.dedupeRetentionMs,
    },
    intake,
    store,
    logger.child({ component: 'github' }),
    now,
  );
}

/** The Jira integration when configured (issue 30; loaded lazily, as the others). */
export async function jiraIntegration(config: AppConfig, intake: IntakeService, store: Store, logger: Logger, now: () => number) {
  const jira = config.jira;
  if (!jira.enabled || !jira.baseUrl || !jira.email || !jira.apiToken || !jira.webhookSecret) return undefined;
  const { startJira } = await import('../jira/index.js');
  return startJira(
    {
      baseUrl: jira.baseUrl,
      email: jira.email,
      apiToken: jira.apiToken,
      webhookSecret: jira.webhookSecret,
      handle: jira.handle,
      followups: jira.followups,
      context: jira.context,
      cancelOnLabelRemoved: jira.cancelOnLabelRemoved,
      labels: jira.labels,
      slackChannels: config.slack.enabled ? jira.slackChannels : {},
      projects: jira.projects,
      states: jira.states,
      allowedUsers: jira.allowedUsers,
    },
    intake,
    store,
    logger.child({ component: 'jira' }),
    now,
  );
}

/** The configured run API, or the built-in emulator (`built-in-emulator.ts`) when none is configured. */
export async function agentApiEndpoint(config: AppConfig, logger: Logger): Promise<{ baseUrl: string; apiKey: string; emulator?: BuiltInEmulator }> {
  if (!config.agentApi.emulated && config.agentApi.baseUrl && config.agentApi.apiKey) {
    return { baseUrl: config.agentApi.baseUrl, apiKey: config.agentApi.apiKey };
  }
  return startBuiltInEmulator(config, logger);
}
