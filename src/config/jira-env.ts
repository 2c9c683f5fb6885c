/**
 * Jira Cloud's environment variables (issue 30, docs/jira.md): `JIRA_BASE_URL` turns Jira on and needs
 * `JIRA_EMAIL`, `JIRA_API_TOKEN` (basic auth for REST v3) and `JIRA_WEBHOOK_SECRET` (the admin
 * webhook's secret) with it. Checked one by one here and as a set in `jiraSetProblems`; problems name
 * the variable and never contain a secret's value.
 */
import type { ConfigProblem } from '../config-kit/problem.js';
import { checkBaseUrl, HTTPS_ONLY, isLoopbackHost } from '../config-kit/urls.js';

/** The Jira variables, in the order problems name them. */
export const JIRA_VARIABLES = ['JIRA_BASE_URL', 'JIRA_EMAIL', 'JIRA_API_TOKEN', 'JIRA_WEBHOOK_SECRET'] as const;

export const JIRA_BASE_URL_HINT = 'set it to your site, e.g. https://acme.atlassian.net';
export const JIRA_EMAIL_HINT = 'set it to the email of the Atlassian account the bridge acts as (the one that owns JIRA_API_TOKEN)';
export const JIRA_TOKEN_HINT = 'create an API token at id.atlassian.com → Security → API tokens (Create API token), signed in as that account';
export const JIRA_SECRET_HINT = 'set the same secret on the webhook under Jira Settings → System → WebHooks (Secret)';

/** What a `JIRA_*` value check answers: the value to keep, or the problem and its hint. */
export type JiraCheck = { ok: true; value: string } | { ok: false; message: string; hint: string };

/** `JIRA_BASE_URL`: the site's origin (https, or http on loopback for tests), without a path or trailing slash. */
export function checkJiraBaseUrl(value: string): JiraCheck {
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
export function checkJiraEmail(value: string): JiraCheck {
  if (!/^[^\s@:]+@[^\s@:]+$/.test(value)) return { ok: false, message: 'is not an email address', hint: JIRA_EMAIL_HINT };
  return { ok: true, value };
}

const HINTS: Record<(typeof JIRA_VARIABLES)[number], string> = {
  JIRA_BASE_URL: JIRA_BASE_URL_HINT,
  JIRA_EMAIL: JIRA_EMAIL_HINT,
  JIRA_API_TOKEN: JIRA_TOKEN_HINT,
  JIRA_WEBHOOK_SECRET: JIRA_SECRET_HINT,
};

/** A partial set of the Jira variables: one problem per missing variable, naming what is set and where to find it. */
export function jiraSetProblems(env: Readonly<Record<string, string | undefined>>): ConfigProblem[] {
  const set = JIRA_VARIABLES.filter((name) => env[name] !== undefined);
  if (set.length === 0 || set.length === JIRA_VARIABLES.length) return [];
  const given = set.join(', ');
  return JIRA_VARIABLES.filter((name) => env[name] === undefined).map((name) => ({
    where: name,
    message: `Jira is half configured: ${given} ${set.length > 1 ? 'are' : 'is'} set, but ${name} is not — set it`,
    hint: `${HINTS[name]}; or unset ${given} to turn Jira off`,
  }));
}
