/**
 * What `config check` asks Microsoft of Teams (unless `--offline`): whether the bot's app id, secret
 * and tenant get a token from the login service — the one thing that fails silently until the first
 * message — and whether the Bot Connector's signing keys can be read. Unreachable services are said,
 * not failed.
 */
import { NotifierError } from '../core/ports/notifier.js';
import type { LiveCheck } from '../surface-kit/surface-module.js';
import { AccessToken } from './access-token.js';
import type { TeamsSection } from './config/section.js';

export async function teamsLiveChecks(teams: TeamsSection): Promise<LiveCheck> {
  if (!teams.enabled || !teams.clientId || !teams.clientSecret || !teams.tenantId) return { lines: [] };
  const lines: string[] = [];
  const problems: string[] = [];
  const token = new AccessToken({ clientId: teams.clientId, clientSecret: teams.clientSecret, tenantId: teams.tenantId, loginUrl: teams.loginUrl }, Date.now);
  try {
    await token.get();
    lines.push('Microsoft Teams: the bot’s app id, secret and tenant get a token from the login service');
  } catch (error) {
    if (error instanceof NotifierError && error.code === 'teams_login_refused' && !error.retryable) problems.push(error.message);
    else lines.push('Microsoft Teams: the login service did not answer; the bot’s credentials are not checked (run again, or pass --offline)');
  }
  try {
    const response = await fetch(teams.openIdMetadataUrl, { signal: AbortSignal.timeout(5_000) });
    const metadata = (await response.json().catch(() => undefined)) as { jwks_uri?: unknown } | undefined;
    if (response.ok && typeof metadata?.jwks_uri === 'string') lines.push('Microsoft Teams: the Bot Connector’s signing keys can be read');
    else
      problems.push(
        `TEAMS_OPENID_METADATA_URL answered ${response.status} without a jwks_uri: activities could not be verified — leave it unset for Microsoft’s`,
      );
  } catch {
    lines.push('Microsoft Teams: the Bot Connector’s OpenID metadata did not answer (run again, or pass --offline)');
  }
  return { lines, problems };
}
