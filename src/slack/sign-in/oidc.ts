/**
 * Sign in with Slack: OpenID Connect's authorization code flow through `openid-client`, with state,
 * nonce and PKCE (when the provider offers S256), and the id_token's signature checked against the
 * provider's published keys (JWKS), its issuer and its audience (our client id).
 *
 * The provider is discovered at the first sign-in (`/.well-known/openid-configuration` of the
 * issuer), not at start: the service starts without the network, and a failed discovery is tried
 * again at the next sign-in.
 */
import * as oidc from 'openid-client';
import { isLoopbackHost } from '../../config-kit/urls.js';
import { ProviderUnavailable, SignInRefused } from '../../surface-kit/sign-in-provider.js';
import type { SlackSignInConfig } from '../config/env.js';

/** Slack's claims in its id_token (https://api.slack.com/authentication/sign-in-with-slack). */
const USER_ID_CLAIM = 'https://slack.com/user_id';
const TEAM_ID_CLAIM = 'https://slack.com/team_id';

/** The OpenID client's settings: Slack's client id and secret, its issuer, and where it sends people back. */
export interface SlackOidcSettings extends SlackSignInConfig {
  /** `PUBLIC_URL/console/auth/slack/callback`: must be listed under OAuth & Permissions → Redirect URLs. */
  redirectUrl: string;
}

/** What a started sign-in must remember until Slack sends the person back (sealed in a cookie). */
export interface PendingSignIn {
  state: string;
  nonce: string;
  /** Absent when the provider does not offer PKCE with S256. */
  verifier?: string;
}

/** Who signed in: the Slack user id (the person id everywhere), their workspace and name. */
export interface SlackIdentity {
  personId: string;
  teamId: string | undefined;
  name: string;
}

const SCOPES = 'openid profile';

export class SlackOidc {
  private discovered: Promise<oidc.Configuration> | undefined;

  constructor(private readonly settings: SlackOidcSettings) {}

  /** The provider's configuration, discovered once; a failure is forgotten so the next sign-in tries again. */
  private configuration(): Promise<oidc.Configuration> {
    if (!this.discovered) {
      const issuer = new URL(this.settings.issuer);
      // Plain http only for a provider on this machine (tests, local trials); the config refuses it elsewhere.
      const insecure = issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname);
      this.discovered = oidc
        .discovery(issuer, this.settings.clientId, undefined, oidc.ClientSecretPost(this.settings.clientSecret), {
          execute: [oidc.enableNonRepudiationChecks, ...(insecure ? [oidc.allowInsecureRequests] : [])],
          timeout: 10,
        })
        .catch((error: unknown) => {
          this.discovered = undefined;
          throw new ProviderUnavailable(`could not read ${this.settings.issuer}/.well-known/openid-configuration (${describe(error)})`);
        });
    }
    return this.discovered;
  }

  /** Where to send the browser, and what to remember until it comes back. */
  async start(): Promise<{ url: string; pending: PendingSignIn }> {
    const config = await this.configuration();
    const pending: PendingSignIn = { state: oidc.randomState(), nonce: oidc.randomNonce() };
    const parameters: Record<string, string> = {
      redirect_uri: this.settings.redirectUrl,
      scope: SCOPES,
      state: pending.state,
      nonce: pending.nonce,
    };
    if (config.serverMetadata().supportsPKCE()) {
      pending.verifier = oidc.randomPKCECodeVerifier();
      parameters['code_challenge'] = await oidc.calculatePKCECodeChallenge(pending.verifier);
      parameters['code_challenge_method'] = 'S256';
    }
    return { url: oidc.buildAuthorizationUrl(config, parameters).href, pending };
  }

  /**
   * Completes the sign-in from the callback's query: checks the state, exchanges the code (with the
   * PKCE verifier), and checks the id_token (signature against the JWKS, issuer, audience, nonce, expiry).
   */
  async finish(callbackQuery: URLSearchParams, pending: PendingSignIn): Promise<SlackIdentity> {
    const config = await this.configuration();
    // The URL the provider sent the browser to, as the provider knows it (PUBLIC_URL, not our listener's address).
    const current = new URL(this.settings.redirectUrl);
    current.search = callbackQuery.toString();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, current, {
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
        ...(pending.verifier && { pkceCodeVerifier: pending.verifier }),
      });
    } catch (error) {
      throw refusal(error);
    }
    const claims = tokens.claims();
    if (!claims) throw new SignInRefused('the provider sent no id_token');
    const personId = claims[USER_ID_CLAIM] ?? claims.sub;
    if (typeof personId !== 'string' || !/^[UW][A-Z0-9]{2,}$/.test(personId)) throw new SignInRefused('the id_token names no Slack user');
    const team = claims[TEAM_ID_CLAIM];
    const name =
      [claims['name'], claims['given_name'], personId].find((value): value is string => typeof value === 'string' && value.trim() !== '') ?? personId;
    return { personId, teamId: typeof team === 'string' && team !== '' ? team : undefined, name: name.trim() };
  }
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'error';
}

/**
 * What went wrong, in words: the library's codes say which check failed. The provider's own error
 * (`error=access_denied` …) and a refused code are the person's to retry; a network failure is not.
 */
function refusal(error: unknown): Error {
  if (error instanceof oidc.AuthorizationResponseError) return new SignInRefused(`the provider answered ${error.error}`);
  if (error instanceof oidc.ResponseBodyError) return new SignInRefused(`the provider refused the sign-in code (${error.error})`);
  const failed = failedCheck(error);
  return failed ? new SignInRefused(failed) : new ProviderUnavailable(`the provider could not be reached (${describe(error)})`);
}

/** Words for the claims the id_token is checked on. */
const CLAIMS: Record<string, string> = { iss: 'issuer (iss)', aud: 'audience (aud)', nonce: 'nonce', azp: 'authorized party (azp)', exp: 'expiry (exp)' };

/**
 * Which of the library's checks failed, in words, or undefined when none did (a network failure).
 * The library wraps its check's error (code `OAUTH_*`, the claim in `cause.claim`) in others: the
 * innermost one says most.
 */
function failedCheck(error: unknown): string | undefined {
  let found: string | undefined;
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('OAUTH_')) continue;
    const claim = (current.cause as { claim?: unknown } | undefined)?.claim;
    if (typeof claim === 'string') found = `the id_token's ${CLAIMS[claim] ?? claim} is not the expected one`;
    // oauth4webapi's failed signature check carries the signature it checked as its cause.
    else if (hasSignature(current.cause)) found = "the id_token's signature does not match the provider's keys";
    else found ??= current.message;
  }
  return found === undefined ? undefined : `the answer failed a check: ${found}`;
}

function hasSignature(cause: unknown): boolean {
  return typeof cause === 'object' && cause !== null && 'signature' in cause;
}
