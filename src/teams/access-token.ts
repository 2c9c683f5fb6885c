/**
 * The bot's own access token for the Bot Connector: client credentials of its Entra app at
 * `{TEAMS_LOGIN_URL}/{tenant}/oauth2/v2.0/token`, scope `https://api.botframework.com/.default`
 * (single-tenant bots). Kept until five minutes before it expires; one request at a time refreshes it.
 * Neither the secret nor a token ever reaches an error's text.
 */
import { NotifierError } from '../core/ports/notifier.js';

const SCOPE = 'https://api.botframework.com/.default';
const EARLY_MS = 5 * 60_000;

export interface TokenSettings {
  clientId: string;
  clientSecret: string;
  tenantId: string;
  loginUrl: string;
}

export class AccessToken {
  private current: { token: string; until: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly settings: TokenSettings,
    private readonly now: () => number,
  ) {}

  /** A token valid for a while yet. */
  async get(): Promise<string> {
    if (this.current && this.current.until > this.now()) return this.current.token;
    this.pending ??= this.fetch().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Forgets the token (the connector refused it). */
  forget(): void {
    this.current = undefined;
  }

  private async fetch(): Promise<string> {
    const { clientId, clientSecret, tenantId, loginUrl } = this.settings;
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope: SCOPE });
    let response: Response;
    try {
      response = await fetch(`${loginUrl}/${encodeURIComponent(tenantId)}/oauth2/v2.0/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
        signal: AbortSignal.timeout(15_000),
      });
    } catch (error) {
      throw new NotifierError('Teams: the login service could not be reached', { code: 'teams_login_unreachable', retryable: true, cause: error });
    }
    const body = (await response.json().catch(() => undefined)) as { access_token?: unknown; expires_in?: unknown; error?: unknown } | undefined;
    if (!response.ok || typeof body?.access_token !== 'string') {
      const error = typeof body?.error === 'string' ? body.error.slice(0, 60) : `status ${response.status}`;
      // invalid_client / unauthorized_client: the app id, secret or tenant is wrong, and stays wrong until an operator fixes it.
      const lasting = response.status === 400 || response.status === 401;
      throw new NotifierError(
        `Teams: the login service refused the bot’s credentials (${error}): check TEAMS_CLIENT_ID, TEAMS_CLIENT_SECRET and TEAMS_TENANT_ID`,
        { code: 'teams_login_refused', retryable: !lasting || response.status >= 500 },
      );
    }
    const lifetime = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 3_600_000;
    this.current = { token: body.access_token, until: this.now() + Math.max(lifetime - EARLY_MS, 30_000) };
    return body.access_token;
  }
}
