/** What `config check` and the start say of Teams: its section with the secret masked, its summary line. */
import { describeRoutes, maskSecret, plural, routeList, type SecretSource } from '../../config-kit/describe-parts.js';
import type { MicrosoftSignInConfig } from './env.js';
import type { TeamsSection } from './section.js';

type SourceOf = (variable: string) => SecretSource | undefined;

/** `config.teams` as `config check` shows it: the client secret masked. */
export function describeTeams(teams: TeamsSection, source: SourceOf): Record<string, unknown> {
  return {
    ...teams,
    clientSecret: maskSecret(teams.clientSecret, source('TEAMS_CLIENT_SECRET')) ?? null,
    allowedUsers: [...teams.allowedUsers],
    channels: describeRoutes(teams.channels),
  };
}

/** Sign in with Microsoft as `config check` shows it: the client secret masked. */
export function describeMicrosoftSignIn(signIn: MicrosoftSignInConfig, source: SourceOf): Record<string, unknown> {
  return {
    clientId: signIn.clientId,
    clientSecret: maskSecret(signIn.clientSecret, source('TEAMS_CLIENT_SECRET')),
    tenantId: signIn.tenantId,
    issuer: signIn.issuer,
  };
}

/** Teams' line of the summary: its channels and who may start runs, or what turns it on. */
export function teamsSummary(teams: TeamsSection): string {
  if (!teams.enabled) return 'Microsoft Teams: off — set TEAMS_CLIENT_ID, TEAMS_CLIENT_SECRET and TEAMS_TENANT_ID to turn it on';
  const users = teams.allowedUsers.length === 0 ? 'everyone in the tenant' : plural(teams.allowedUsers.length, 'allowed user');
  return `Microsoft Teams: on (messages at POST /teams/messages; channels: ${routeList(teams.channels)}; follow-ups: ${teams.followups}; may start runs: ${users})`;
}
