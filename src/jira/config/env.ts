/**
 * Jira Cloud's environment variables (docs/jira.md): `JIRA_BASE_URL` turns Jira on and needs
 * `JIRA_EMAIL`, `JIRA_API_TOKEN` (basic auth for REST v3) and `JIRA_WEBHOOK_SECRET` (the admin
 * webhook's secret) with it. Checked one by one here and as a set in `jiraSetProblems`; problems name
 * the variable and never contain a secret's value.
 */
import type { z } from 'zod';
import { fail, optionalText, secret } from '../../config-kit/env-checks.js';
import type { ConfigProblem } from '../../config-kit/problem.js';
import { checkBaseUrl, HTTPS_ONLY, isLoopbackHost } from '../../config-kit/urls.js';
import type { EnvVariable } from '../../surface-kit/config-slice.js';

const JIRA_BASE_URL_HINT = 'set it to your site, e.g. https://acme.atlassian.net';
const JIRA_EMAIL_HINT = 'set it to the email of the Atlassian account the bridge acts as (the one that owns JIRA_API_TOKEN)';
const JIRA_TOKEN_HINT = 'create an API token at id.atlassian.com → Security → API tokens (Create API token), signed in as that account';
const JIRA_SECRET_HINT = 'set the same secret on the webhook under Jira Settings → System → WebHooks (Secret)';

/** The Jira variables, in the order problems name them. */
export const JIRA_VARIABLES = [
  { name: 'JIRA_BASE_URL', secret: false, hint: JIRA_BASE_URL_HINT },
  { name: 'JIRA_EMAIL', secret: false, hint: JIRA_EMAIL_HINT },
  { name: 'JIRA_API_TOKEN', secret: true, hint: JIRA_TOKEN_HINT },
  { name: 'JIRA_WEBHOOK_SECRET', secret: true, hint: JIRA_SECRET_HINT },
] as const satisfies readonly EnvVariable[];

/** What a `JIRA_*` value check answers: the value to keep, or the problem and its hint. */
type JiraCheck = { ok: true; value: string } | { ok: false; message: string; hint: string };

/** `JIRA_BASE_URL`: the site's origin (https, or http on loopback for tests), without a path or trailing slash. */
function checkJiraBaseUrl(value: string): JiraCheck {
  const checked = checkBaseUrl(value);
  if (!checked.ok) return { ok: false, message: checked.message, hint: JIRA_BASE_URL_HINT };
  if (checked.url.protocol !== 'https:' && !isLoopbackHost(checked.url.hostname)) {
    return { ok: false, message: HTTPS_ONLY, hint: JIRA_BASE_URL_HINT };
  }
  const path = checked.url.pathname.replace(/\/+$/, '');
  if (path !== '') {
    return { ok: false, message: `must be the site alone, without a path (its path is "${checked.url.pathname}")`, hint: JIRA_BASE_URL_HINT };
  }
  return { ok: true, value: `${checked.url.protocol}//${checked.url.host}` };
}

/** `JIRA_EMAIL`: one address (it is the user half of basic auth). */
function checkJiraEmail(value: string): JiraCheck {
  if (!/^[^\s@:]+@[^\s@:]+$/.test(value)) return { ok: false, message: 'is not an email address', hint: JIRA_EMAIL_HINT };
  return { ok: true, value };
}

/** A value checked by `check`, which says the problem and its hint. */
const jiraValue = (check: (value: string) => JiraCheck) =>
  optionalText.transform((value, ctx) => {
    if (value === undefined) return value;
    const checked = check(value);
    return checked.ok ? checked.value : fail(ctx, checked.message, checked.hint);
  });

/** Each Jira variable checked alone. */
export const jiraEnvShape = {
  JIRA_BASE_URL: jiraValue(checkJiraBaseUrl),
  JIRA_EMAIL: jiraValue(checkJiraEmail),
  JIRA_API_TOKEN: secret(JIRA_TOKEN_HINT),
  JIRA_WEBHOOK_SECRET: secret(JIRA_SECRET_HINT),
};

/** Jira's checked variables: all four or none (the set is checked before). */
export interface JiraEnv {
  baseUrl: string | undefined;
  email: string | undefined;
  apiToken: string | undefined;
  webhookSecret: string | undefined;
}

/** Jira's settings from its checked variables. */
export function readJiraEnv(v: z.output<z.ZodObject<typeof jiraEnvShape>>): { env: JiraEnv } {
  return { env: { baseUrl: v.JIRA_BASE_URL, email: v.JIRA_EMAIL, apiToken: v.JIRA_API_TOKEN, webhookSecret: v.JIRA_WEBHOOK_SECRET } };
}

/** Jira is on with its site (the other three variables come with it). */
export function jiraIsOn(env: Readonly<Record<string, string | undefined>>): boolean {
  return env['JIRA_BASE_URL'] !== undefined;
}

/** A partial set of the Jira variables: one problem per missing variable, naming what is set and where to find it. */
export function jiraSetProblems(env: Readonly<Record<string, string | undefined>>): ConfigProblem[] {
  const set = JIRA_VARIABLES.filter(({ name }) => env[name] !== undefined).map(({ name }) => name);
  if (set.length === 0 || set.length === JIRA_VARIABLES.length) return [];
  const given = set.join(', ');
  return JIRA_VARIABLES.filter(({ name }) => env[name] === undefined).map(({ name, hint }) => ({
    where: name,
    message: `Jira is half configured: ${given} ${set.length > 1 ? 'are' : 'is'} set, but ${name} is not — set it`,
    hint: `${hint}; or unset ${given} to turn Jira off`,
  }));
}
