import type { Metrics } from '../http/metrics.js';
import { healthEndpoints, notConfiguredEndpoint, type ReadinessCheck } from '../http/health-endpoints.js';
import type { Endpoint } from '../http/server.js';
import type { Logger } from '../core/ports/logger.js';

/**
 * Every route of the one HTTP server: health, readiness and metrics, then each integration's webhook,
 * or a 404 that says how to turn the integration on.
 */
export function serviceEndpoints(parts: {
  checks: ReadinessCheck[];
  metrics: Metrics;
  logger: Logger;
  now: () => number;
  /** `METRICS_TOKEN`: `/metrics` answers only its bearer. */
  metricsToken?: string;
  slack?: { route: Endpoint | undefined };
  linear?: { route: Endpoint };
  github?: { route: Endpoint };
  jira?: { route: Endpoint };
}): Endpoint[] {
  const { slack, linear, github, jira } = parts;
  return [
    ...healthEndpoints({
      checks: parts.checks,
      metrics: parts.metrics,
      logger: parts.logger,
      now: parts.now,
      ...(parts.metricsToken !== undefined && { metricsToken: parts.metricsToken }),
    }),
    slack?.route ??
      notConfiguredEndpoint(
        '/slack/events',
        'Slack over HTTP',
        slack
          ? 'Slack runs in Socket Mode here (SLACK_APP_TOKEN); events arrive over the WebSocket'
          : 'set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode)',
      ),
    linear?.route ?? notConfiguredEndpoint('/linear/webhook', 'Linear', 'set LINEAR_API_KEY (or LINEAR_ACCESS_TOKEN) and LINEAR_WEBHOOK_SECRET'),
    github?.route ??
      notConfiguredEndpoint('/github/webhook', 'GitHub', 'set GITHUB_APP_ID, GITHUB_PRIVATE_KEY_PATH and GITHUB_WEBHOOK_SECRET (docs/github.md)'),
    jira?.route ?? notConfiguredEndpoint('/jira/webhook', 'Jira', 'set JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN and JIRA_WEBHOOK_SECRET'),
  ];
}
