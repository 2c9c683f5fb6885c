/**
 * GitLab's environment variables (docs/gitlab.md): the access token turns GitLab on and needs the
 * webhook's secret; `GITLAB_URL` names a self-managed instance. Problems name the variable and where
 * GitLab shows its value, never a secret's value.
 */
import type { z } from 'zod';
import { fail, optionalText, secret } from '../../config-kit/env-checks.js';
import type { ConfigProblem } from '../../config-kit/problem.js';
import { checkBaseUrl, HTTPS_ONLY, isLoopbackHost } from '../../config-kit/urls.js';
import { standardWebhooksKey } from '../../http/verify-standard-webhooks.js';
import type { EnvVariable } from '../../surface-kit/config-slice.js';

export const DEFAULT_GITLAB_URL = 'https://gitlab.com';

const TOKEN_HINT =
  'create an access token with the api scope: the project’s (or group’s) Settings → Access tokens → Add new token, or a bot user’s User settings → Access tokens';
const SECRET_HINT = 'set the same value as the project’s Settings → Webhooks → your webhook → Secret token (or its signing token, whsec_…)';
const URL_HINT = `leave it unset for ${DEFAULT_GITLAB_URL}, or set your self-managed instance’s address, e.g. https://gitlab.example.com`;

/** GitLab's variables, in the order the docs name them. */
export const GITLAB_VARIABLES = [
  { name: 'GITLAB_TOKEN', secret: true, hint: TOKEN_HINT },
  { name: 'GITLAB_WEBHOOK_SECRET', secret: true, hint: SECRET_HINT },
  { name: 'GITLAB_URL', secret: false, hint: URL_HINT },
] as const satisfies readonly EnvVariable[];

/** GitLab's checked variables; undefined secrets when GitLab is off. */
export interface GitlabEnv {
  token: string | undefined;
  webhookSecret: string | undefined;
  /** The instance, without a trailing slash; the API is `{url}/api/v4`. */
  url: string;
}

/** Each GitLab variable checked alone: a `whsec_` secret must be a signing token whose key reads. */
export const gitlabEnvShape = {
  GITLAB_TOKEN: secret(TOKEN_HINT),
  GITLAB_WEBHOOK_SECRET: secret(SECRET_HINT).transform((value, ctx) => {
    if (value === undefined || !value.startsWith('whsec_')) return value;
    try {
      standardWebhooksKey(value);
    } catch {
      return fail(ctx, 'starts with whsec_ but is not a signing token: whsec_ must be followed by base64', SECRET_HINT);
    }
    return value;
  }),
  GITLAB_URL: optionalText.transform((value, ctx) => {
    if (value === undefined) return DEFAULT_GITLAB_URL;
    const checked = checkBaseUrl(value);
    if (!checked.ok) return fail(ctx, checked.message, URL_HINT);
    if (checked.url.protocol !== 'https:' && !isLoopbackHost(checked.url.hostname)) return fail(ctx, HTTPS_ONLY, URL_HINT);
    return checked.url.href.replace(/\/+$/, '');
  }),
};

/** GitLab is on with its token (the secret is then required). */
export function gitlabIsOn(env: Readonly<Record<string, string | undefined>>): boolean {
  return env['GITLAB_TOKEN'] !== undefined;
}

/** A partial set: the token without the secret, or the secret without the token. */
export function gitlabSetProblems(env: Readonly<Record<string, string>>): ConfigProblem[] {
  const token = env['GITLAB_TOKEN'] !== undefined;
  const secretSet = env['GITLAB_WEBHOOK_SECRET'] !== undefined;
  if (token && !secretSet) {
    return [
      {
        where: 'GITLAB_WEBHOOK_SECRET',
        message: 'GitLab is half configured: GITLAB_TOKEN is set, but GITLAB_WEBHOOK_SECRET is not — set it',
        hint: `${SECRET_HINT}; or unset GITLAB_TOKEN to turn GitLab off`,
      },
    ];
  }
  if (secretSet && !token) {
    return [
      {
        where: 'GITLAB_TOKEN',
        message: 'GitLab is half configured: GITLAB_WEBHOOK_SECRET is set, but GITLAB_TOKEN is not — set it',
        hint: `${TOKEN_HINT}; or unset GITLAB_WEBHOOK_SECRET to turn GitLab off`,
      },
    ];
  }
  return [];
}

/** GitLab's settings from its checked variables. */
export function readGitlabEnv(v: z.output<z.ZodObject<typeof gitlabEnvShape>>): { env: GitlabEnv } {
  return { env: { token: v.GITLAB_TOKEN, webhookSecret: v.GITLAB_WEBHOOK_SECRET, url: v.GITLAB_URL } };
}
