import type { AppConfig } from './types.js';

/**
 * Every secret value the configuration holds, for the logger to scrub from every line: each variable
 * of `SECRET_VARIABLES` has its value here (the database URL by its password). Credentials minted
 * while the service runs (the GitHub App's JWT and installation tokens) are not known yet: the logger
 * knows them by their shape.
 */
export function secretValues(config: AppConfig): Array<string | undefined> {
  return [
    config.agentApi.apiKey,
    config.slack.botToken,
    config.slack.signingSecret,
    config.slack.appToken,
    config.linear.apiKey,
    config.linear.accessToken,
    config.linear.webhookSecret,
    config.github.webhookSecret,
    config.github.privateKey,
    config.jira.apiToken,
    config.jira.webhookSecret,
    config.database.kind === 'postgres' ? config.database.password : undefined,
    config.people.secret,
    config.console.adminToken,
    config.console.slackSignIn?.clientSecret,
    config.http.metricsToken,
  ];
}
