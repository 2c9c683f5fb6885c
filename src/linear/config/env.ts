/**
 * Linear's environment variables (docs/linear.md, docs/configuration.md): an API key or an OAuth app's
 * access token, with the webhook's secret, turn Linear on. Checked one by one, then as a set; problems
 * name the variable and where Linear shows it, never a secret's value.
 */
import type { z } from 'zod';
import { fail, optionalText, secret } from '../../config-kit/env-checks.js';
import type { ConfigProblem } from '../../config-kit/problem.js';
import { checkBaseUrl, HTTPS_ONLY, isLoopbackHost } from '../../config-kit/urls.js';
import type { EnvVariable } from '../../surface-kit/config-slice.js';

export const DEFAULT_LINEAR_API_URL = 'https://api.linear.app/graphql';

const LINEAR_KEY_HINT =
  'create a personal API key under Linear Settings → Security & access, or use an OAuth app token (actor=app) as LINEAR_ACCESS_TOKEN for agent sessions';
const LINEAR_SECRET_HINT = "find it on your webhook's page in Linear Settings → API → Webhooks (or in your OAuth app's webhook settings)";

/** Linear's variables, in the order the docs name them. */
export const LINEAR_VARIABLES = [
  { name: 'LINEAR_API_KEY', secret: true, hint: LINEAR_KEY_HINT },
  { name: 'LINEAR_ACCESS_TOKEN', secret: true, hint: LINEAR_KEY_HINT },
  { name: 'LINEAR_WEBHOOK_SECRET', secret: true, hint: LINEAR_SECRET_HINT },
  { name: 'LINEAR_API_URL', secret: false, hint: `leave it unset for ${DEFAULT_LINEAR_API_URL}` },
] as const satisfies readonly EnvVariable[];

const linearApiUrl = optionalText.transform((value, ctx) => {
  if (value === undefined) return DEFAULT_LINEAR_API_URL;
  const checked = checkBaseUrl(value);
  if (!checked.ok) return fail(ctx, checked.message, `leave it unset for ${DEFAULT_LINEAR_API_URL}`);
  if (checked.url.protocol !== 'https:' && !isLoopbackHost(checked.url.hostname)) return fail(ctx, HTTPS_ONLY);
  return checked.url.href;
});

/** Each Linear variable checked alone. */
export const linearEnvShape = {
  LINEAR_API_KEY: secret(LINEAR_KEY_HINT),
  LINEAR_ACCESS_TOKEN: secret(LINEAR_KEY_HINT),
  LINEAR_WEBHOOK_SECRET: secret(LINEAR_SECRET_HINT),
  LINEAR_API_URL: linearApiUrl,
};

/** Linear's checked variables. */
export interface LinearEnv {
  apiKey: string | undefined;
  accessToken: string | undefined;
  webhookSecret: string | undefined;
  apiUrl: string;
}

/** Linear's settings from its checked variables. */
export function readLinearEnv(v: z.output<z.ZodObject<typeof linearEnvShape>>): { env: LinearEnv } {
  return { env: { apiKey: v.LINEAR_API_KEY, accessToken: v.LINEAR_ACCESS_TOKEN, webhookSecret: v.LINEAR_WEBHOOK_SECRET, apiUrl: v.LINEAR_API_URL } };
}

/** Linear is on with an API key or an access token, and the webhook secret (docs/configuration.md). */
export function linearIsOn(env: Readonly<Record<string, string | undefined>>): boolean {
  return (env['LINEAR_API_KEY'] !== undefined || env['LINEAR_ACCESS_TOKEN'] !== undefined) && env['LINEAR_WEBHOOK_SECRET'] !== undefined;
}

/** A key without the webhook secret, or the secret without a key. */
export function linearSetProblems(env: Readonly<Record<string, string>>): ConfigProblem[] {
  const has = (name: string) => env[name] !== undefined;
  const linearKey = has('LINEAR_API_KEY') || has('LINEAR_ACCESS_TOKEN');
  if (linearKey && !has('LINEAR_WEBHOOK_SECRET')) {
    const set = ['LINEAR_API_KEY', 'LINEAR_ACCESS_TOKEN'].filter(has).join(' and ');
    return [
      {
        where: 'LINEAR_WEBHOOK_SECRET',
        message: `Linear is half configured: ${set} ${set.includes(' and ') ? 'are' : 'is'} set, but LINEAR_WEBHOOK_SECRET is not — set it`,
        hint: `${LINEAR_SECRET_HINT}; or unset ${set} to turn Linear off`,
      },
    ];
  }
  if (!linearKey && has('LINEAR_WEBHOOK_SECRET')) {
    return [
      {
        where: 'LINEAR_API_KEY',
        message: 'Linear is half configured: LINEAR_WEBHOOK_SECRET is set, but neither LINEAR_API_KEY nor LINEAR_ACCESS_TOKEN is — set one of them',
        hint: `${LINEAR_KEY_HINT}; or unset LINEAR_WEBHOOK_SECRET to turn Linear off`,
      },
    ];
  }
  return [];
}
