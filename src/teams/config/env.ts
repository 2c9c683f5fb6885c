/**
 * Teams' environment variables (docs/teams.md, docs/configuration.md): the Entra app's client id turns
 * Teams on and needs its secret and tenant; the other variables point at Microsoft's services, which
 * tests and sovereign clouds replace. The same app signs people in to the console (Sign in with
 * Microsoft). Problems name the variable and where the Azure portal shows it, never a secret's value.
 */
import { z } from 'zod';
import { fail, optionalText, secret } from '../../config-kit/env-checks.js';
import type { ConfigProblem } from '../../config-kit/problem.js';
import { checkBaseUrl, HTTPS_ONLY, isLoopbackHost } from '../../config-kit/urls.js';
import type { EnvVariable } from '../../surface-kit/config-slice.js';
import { GUID } from './ids.js';

export const DEFAULT_OPENID_METADATA_URL = 'https://login.botframework.com/v1/.well-known/openidconfiguration';
export const DEFAULT_LOGIN_URL = 'https://login.microsoftonline.com';
/** `TEAMS_OIDC_ISSUER` unset: the tenant's own issuer on Microsoft's identity platform. */
export const defaultOidcIssuer = (tenantId: string) => `https://login.microsoftonline.com/${tenantId}/v2.0`;

const CLIENT_ID_HINT =
  'find it in the Azure portal under your Azure Bot → Configuration → Microsoft App ID (or Microsoft Entra admin center → App registrations → your app → Application (client) ID)';
const CLIENT_SECRET_HINT =
  'create one in Microsoft Entra admin center → App registrations → your app → Certificates & secrets → New client secret (copy its Value)';
const TENANT_HINT = 'find it in Microsoft Entra admin center → Overview → Tenant ID (or your Azure Bot → Configuration → App Tenant ID)';
const SERVICE_URLS_HINT = 'comma-separated https URLs of Bot Connector services besides Microsoft’s own; leave it unset for Microsoft’s only';

/** Teams' variables, in the order the docs name them. */
export const TEAMS_VARIABLES = [
  { name: 'TEAMS_CLIENT_ID', secret: false, hint: CLIENT_ID_HINT },
  { name: 'TEAMS_CLIENT_SECRET', secret: true, hint: CLIENT_SECRET_HINT },
  { name: 'TEAMS_TENANT_ID', secret: false, hint: TENANT_HINT },
  { name: 'TEAMS_OPENID_METADATA_URL', secret: false, hint: `leave it unset for ${DEFAULT_OPENID_METADATA_URL}` },
  { name: 'TEAMS_LOGIN_URL', secret: false, hint: `leave it unset for ${DEFAULT_LOGIN_URL}` },
  { name: 'TEAMS_SERVICE_URLS', secret: false, hint: SERVICE_URLS_HINT },
  { name: 'TEAMS_OIDC_ISSUER', secret: false, hint: 'leave it unset for https://login.microsoftonline.com/<TEAMS_TENANT_ID>/v2.0' },
] as const satisfies readonly EnvVariable[];

/** An https URL (plain http only on loopback, for tests), without a trailing slash. */
const httpsUrl = (unsetHint: string) =>
  optionalText.transform((value, ctx) => {
    if (value === undefined) return undefined;
    const checked = checkBaseUrl(value);
    if (!checked.ok) return fail(ctx, checked.message, unsetHint);
    if (checked.url.protocol !== 'https:' && !isLoopbackHost(checked.url.hostname)) return fail(ctx, HTTPS_ONLY, unsetHint);
    return checked.url.href.replace(/\/+$/, '');
  });

const guid = (what: string, hint: string) =>
  optionalText.transform((value, ctx) => {
    if (value === undefined) return undefined;
    if (!GUID.test(value)) return fail(ctx, `is not ${what} — a GUID such as 00000000-0000-0000-0000-000000000000`, hint);
    return value.toLowerCase();
  });

const serviceUrls = optionalText.transform((value, ctx) => {
  if (value === undefined) return [];
  const urls: string[] = [];
  for (const item of value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const checked = checkBaseUrl(item);
    if (!checked.ok) return fail(ctx, `holds an entry that ${checked.message}`, SERVICE_URLS_HINT);
    if (checked.url.protocol !== 'https:' && !isLoopbackHost(checked.url.hostname)) return fail(ctx, `holds an entry that ${HTTPS_ONLY}`, SERVICE_URLS_HINT);
    urls.push(checked.url.href.replace(/\/+$/, ''));
  }
  return urls;
});

/** Each Teams variable checked alone. */
export const teamsEnvShape = {
  TEAMS_CLIENT_ID: guid('an app (client) id', CLIENT_ID_HINT),
  TEAMS_CLIENT_SECRET: secret(CLIENT_SECRET_HINT),
  TEAMS_TENANT_ID: guid('a tenant id', TENANT_HINT),
  TEAMS_OPENID_METADATA_URL: httpsUrl(`leave it unset for ${DEFAULT_OPENID_METADATA_URL}`),
  TEAMS_LOGIN_URL: httpsUrl(`leave it unset for ${DEFAULT_LOGIN_URL}`),
  TEAMS_SERVICE_URLS: serviceUrls,
  TEAMS_OIDC_ISSUER: httpsUrl('leave it unset for https://login.microsoftonline.com/<TEAMS_TENANT_ID>/v2.0'),
};

/** Sign in with Microsoft on the console: OpenID Connect on the bot's own Entra app; the redirect URL is `PUBLIC_URL/console/auth/microsoft/callback`. */
export interface MicrosoftSignInConfig {
  clientId: string;
  clientSecret: string;
  tenantId: string;
  /** The OpenID issuer; endpoints and keys come from its `/.well-known/openid-configuration`. */
  issuer: string;
}

/** Teams' checked variables. */
export interface TeamsEnv {
  clientId: string | undefined;
  clientSecret: string | undefined;
  tenantId: string | undefined;
  openIdMetadataUrl: string;
  loginUrl: string;
  /** Service URLs accepted besides Microsoft's own, without a trailing slash. */
  serviceUrls: string[];
  signIn: MicrosoftSignInConfig | undefined;
}

/** Teams' settings from its checked variables; Sign in with Microsoft whenever the bot's app is complete. */
export function readTeamsEnv(v: z.output<z.ZodObject<typeof teamsEnvShape>>): { env: TeamsEnv } {
  const complete = v.TEAMS_CLIENT_ID !== undefined && v.TEAMS_CLIENT_SECRET !== undefined && v.TEAMS_TENANT_ID !== undefined;
  const signIn = complete
    ? {
        clientId: v.TEAMS_CLIENT_ID!,
        clientSecret: v.TEAMS_CLIENT_SECRET!,
        tenantId: v.TEAMS_TENANT_ID!,
        issuer: v.TEAMS_OIDC_ISSUER ?? defaultOidcIssuer(v.TEAMS_TENANT_ID!),
      }
    : undefined;
  return {
    env: {
      clientId: v.TEAMS_CLIENT_ID,
      clientSecret: v.TEAMS_CLIENT_SECRET,
      tenantId: v.TEAMS_TENANT_ID,
      openIdMetadataUrl: v.TEAMS_OPENID_METADATA_URL ?? DEFAULT_OPENID_METADATA_URL,
      loginUrl: v.TEAMS_LOGIN_URL ?? DEFAULT_LOGIN_URL,
      serviceUrls: v.TEAMS_SERVICE_URLS,
      signIn,
    },
  };
}

/** Teams is on with its client id. */
export function teamsIsOn(env: Readonly<Record<string, string | undefined>>): boolean {
  return env['TEAMS_CLIENT_ID'] !== undefined;
}

/**
 * Teams' variables that must be set together: the client id with its secret and tenant, and a public
 * address — Teams posts to `PUBLIC_URL/teams/messages`, and Sign in with Microsoft returns to it.
 */
export function teamsSetProblems(env: Readonly<Record<string, string>>): ConfigProblem[] {
  const has = (name: string) => env[name] !== undefined;
  const others = ['TEAMS_CLIENT_SECRET', 'TEAMS_TENANT_ID'];
  if (!has('TEAMS_CLIENT_ID')) {
    const set = others.filter(has);
    return set.length === 0
      ? []
      : [
          {
            where: 'TEAMS_CLIENT_ID',
            message: `Teams is half configured: ${set.join(' and ')} ${set.length > 1 ? 'are' : 'is'} set, but TEAMS_CLIENT_ID is not — set it`,
            hint: `${CLIENT_ID_HINT}; or unset ${set.join(' and ')} to turn Teams off`,
          },
        ];
  }
  const problems: ConfigProblem[] = others
    .filter((name) => !has(name))
    .map((name) => ({
      where: name,
      message: `Teams is half configured: TEAMS_CLIENT_ID is set, but ${name} is not — set it`,
      hint: name === 'TEAMS_CLIENT_SECRET' ? CLIENT_SECRET_HINT : TENANT_HINT,
    }));
  if (!has('PUBLIC_URL')) {
    problems.push({
      where: 'PUBLIC_URL',
      message:
        'required with Teams (TEAMS_CLIENT_ID is set): Teams posts to PUBLIC_URL/teams/messages, and Sign in with Microsoft returns to PUBLIC_URL/console/auth/microsoft/callback',
      hint: 'set it to the https address Teams can reach, e.g. https://agent-bridge.example.com, and enter PUBLIC_URL/teams/messages as your Azure Bot’s messaging endpoint (docs/teams.md)',
    });
  }
  return problems;
}
