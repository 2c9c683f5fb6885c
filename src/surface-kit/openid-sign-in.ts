/**
 * OpenID Connect's authorization code flow for a console sign-in provider (Sign in with Slack, with
 * Microsoft), through `openid-client`: state, nonce and PKCE, and the id_token's signature checked
 * against the provider's published keys (JWKS), its issuer and its audience (our client id). What the
 * claims mean is the provider's to say; this only hands them over once every check passed.
 *
 * The provider is discovered at the first sign-in (`/.well-known/openid-configuration` of the
 * issuer), not at start: the service starts without the network, and a failed discovery is tried
 * again at the next sign-in. Providers import this lazily, so a service that never signs anyone in
 * does not load `openid-client`.
 */
import * as oidc from 'openid-client';
import { isLoopbackHost } from '../config-kit/urls.js';
import { ProviderUnavailable, SignInRefused } from './sign-in-provider.js';

/** The OpenID client's settings. */
export interface OpenIdSettings {
  clientId: string;
  clientSecret: string;
  /** The issuer; endpoints and keys come from its `/.well-known/openid-configuration`. */
  issuer: string;
  /** The callback under `PUBLIC_URL`, as the provider knows it. */
  redirectUrl: string;
  /** Space-separated scopes, `openid` first. */
  scope: string;
  /**
   * `always`: a PKCE challenge (S256) on every sign-in, for a provider that takes one without saying
   * so in its discovery document (Microsoft's omits `code_challenge_methods_supported`).
   * `when-offered`: only when the discovery document offers S256.
   */
  pkce: 'always' | 'when-offered';
}

/** What a started sign-in must remember until the provider sends the person back (sealed in a cookie). */
export interface PendingSignIn {
  state: string;
  nonce: string;
  /** Absent when the provider does not offer PKCE with S256 (and `pkce` is `when-offered`). */
  verifier?: string;
}

/** The claims of an id_token that passed every check. */
export type IdTokenClaims = Readonly<Record<string, unknown>>;

/** One provider's OpenID client. */
export class OpenIdSignIn {
  private discovered: Promise<oidc.Configuration> | undefined;

  constructor(private readonly settings: OpenIdSettings) {}

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
      scope: this.settings.scope,
      state: pending.state,
      nonce: pending.nonce,
    };
    if (this.settings.pkce === 'always' || config.serverMetadata().supportsPKCE()) {
      pending.verifier = oidc.randomPKCECodeVerifier();
      parameters['code_challenge'] = await oidc.calculatePKCECodeChallenge(pending.verifier);
      parameters['code_challenge_method'] = 'S256';
    }
    return { url: oidc.buildAuthorizationUrl(config, parameters).href, pending };
  }

  /**
   * Completes the sign-in from the callback's query: checks the state, exchanges the code (with the
   * PKCE verifier), and checks the id_token (signature against the JWKS, issuer, audience, nonce,
   * expiry). Answers its claims; throws SignInRefused for a wrong answer, ProviderUnavailable when
   * the provider could not be reached.
   */
  async finish(callbackQuery: URLSearchParams, pending: PendingSignIn): Promise<IdTokenClaims> {
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
    return claims;
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
