/** What `config check` and the start say of Linear: its section with the credentials masked, and its summary line. */
import { describeRoutes, maskSecret, plural, routeList, type SecretSource } from '../../config-kit/describe-parts.js';
import type { LinearSection } from './section.js';

/** `config.linear` as `config check` shows it: the key, token and webhook secret masked. */
export function describeLinear(linear: LinearSection, source: (variable: string) => SecretSource | undefined): Record<string, unknown> {
  return {
    ...linear,
    apiKey: maskSecret(linear.apiKey, source('LINEAR_API_KEY')) ?? null,
    accessToken: maskSecret(linear.accessToken, source('LINEAR_ACCESS_TOKEN')) ?? null,
    webhookSecret: maskSecret(linear.webhookSecret, source('LINEAR_WEBHOOK_SECRET')) ?? null,
    labels: describeRoutes(linear.labels),
    teams: [...linear.teams],
    allowedUsers: [...linear.allowedUsers],
    states: { ...linear.states },
  };
}

/** Linear's line of the summary: how it authenticates, its labels, teams and who may start runs, or what turns it on. */
export function linearSummary(linear: LinearSection): string {
  if (!linear.enabled) return 'Linear: off — set LINEAR_API_KEY (or LINEAR_ACCESS_TOKEN for agent sessions) and LINEAR_WEBHOOK_SECRET to turn it on';
  const auth =
    linear.accessToken !== undefined ? 'OAuth access token (agent sessions available)' : 'API key (agent sessions need LINEAR_ACCESS_TOKEN with actor=app)';
  const teams = linear.teams.length === 0 ? 'all teams' : `teams ${linear.teams.join(', ')}`;
  const users = linear.allowedUsers.length === 0 ? 'members' : `members and ${plural(linear.allowedUsers.length, 'allowed user')}`;
  return `Linear: on (webhook at POST /linear/webhook; ${auth}; labels: ${routeList(linear.labels)}; ${teams}; may start runs: ${users}; handle ${linear.handle})`;
}
