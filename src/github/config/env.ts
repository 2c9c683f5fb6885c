/**
 * The GitHub App's environment variables (docs/github.md): checked one by one, then as a set —
 * any of them without the others stops the start, naming what is missing and where the App's settings
 * page shows it. The private key comes inline (`\n` escapes allowed) or from a file; its text is never
 * shown, only whether it is a readable RSA private key.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { fail, optionalText, secret } from '../../config-kit/env-checks.js';
import type { ConfigProblem } from '../../config-kit/problem.js';
import { checkBaseUrl, HTTPS_ONLY, isLoopbackHost } from '../../config-kit/urls.js';
import type { EnvVariable } from '../../surface-kit/config-slice.js';

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';
export const DEFAULT_GITHUB_WEB_URL = 'https://github.com';

const APP_PAGE = "your GitHub App's settings page (Settings → Developer settings → GitHub Apps → Edit)";
const GITHUB_APP_ID_HINT = `find it on ${APP_PAGE}, General → About: App ID`;
const GITHUB_PRIVATE_KEY_HINT = `on ${APP_PAGE}, General → Private keys → Generate a private key; set GITHUB_PRIVATE_KEY_PATH to the downloaded .pem file (or GITHUB_PRIVATE_KEY to its text, newlines as \\n)`;
const GITHUB_WEBHOOK_SECRET_HINT = `set the same value as ${APP_PAGE}, General → Webhook → Webhook secret`;

/** The App's variables, in the order the docs name them. */
export const GITHUB_VARIABLES = [
  { name: 'GITHUB_APP_ID', secret: false, hint: GITHUB_APP_ID_HINT },
  { name: 'GITHUB_PRIVATE_KEY', secret: true, hint: GITHUB_PRIVATE_KEY_HINT },
  { name: 'GITHUB_PRIVATE_KEY_PATH', secret: false, hint: GITHUB_PRIVATE_KEY_HINT },
  { name: 'GITHUB_WEBHOOK_SECRET', secret: true, hint: GITHUB_WEBHOOK_SECRET_HINT },
  { name: 'GITHUB_API_URL', secret: false, hint: `leave it unset for ${DEFAULT_GITHUB_API_URL}` },
  { name: 'GITHUB_WEB_URL', secret: false, hint: `leave it unset for ${DEFAULT_GITHUB_WEB_URL}` },
] as const satisfies readonly EnvVariable[];

/** The App's credentials once checked; undefined fields when GitHub is off. */
export interface GithubEnv {
  appId: string | undefined;
  privateKey: string | undefined;
  webhookSecret: string | undefined;
  apiUrl: string;
  webUrl: string;
}

/**
 * What is wrong with the App's key, if anything: it must be a PEM private key that Node reads as an
 * RSA key (what GitHub's "Generate a private key" downloads, PKCS#1, or the same key as PKCS#8). A
 * damaged body would otherwise pass here and fail at the first GitHub call. Nothing of the text, nor
 * of the parser's error, is ever echoed.
 */
export function pemProblem(key: string): string | undefined {
  if (!/-----BEGIN (RSA )?PRIVATE KEY-----/.test(key) || !/-----END (RSA )?PRIVATE KEY-----/.test(key)) {
    return 'is not a PEM private key (it must hold "-----BEGIN RSA PRIVATE KEY-----" … "-----END RSA PRIVATE KEY-----")';
  }
  let parsed: KeyObject;
  try {
    parsed = createPrivateKey(key);
  } catch {
    return 'holds a PEM block that is not a readable private key: the text between its BEGIN and END lines is damaged or cut short';
  }
  if (parsed.asymmetricKeyType !== 'rsa') return `is a key of type ${parsed.asymmetricKeyType ?? 'unknown'}, not an RSA key: GitHub Apps sign with RSA keys`;
  return undefined;
}

/** `\n` written as two characters (one line in an env file) means a line break. */
export function unescapePem(value: string): string {
  return value.replace(/\\n/g, '\n').replace(/\r\n/g, '\n');
}

function baseUrl(fallback: string) {
  return optionalText.transform((value, ctx) => {
    if (value === undefined) return fallback;
    const checked = checkBaseUrl(value);
    if (!checked.ok) return fail(ctx, checked.message, `leave it unset for ${fallback}`);
    if (checked.url.protocol !== 'https:' && !isLoopbackHost(checked.url.hostname)) {
      return fail(ctx, HTTPS_ONLY, `leave it unset for ${fallback}`);
    }
    return checked.url.href.replace(/\/+$/, '');
  });
}

/** Each GitHub variable checked alone; the private key as an RSA key, never shown. */
export const githubEnvShape = {
  GITHUB_APP_ID: optionalText.transform((value, ctx) => {
    if (value !== undefined && !/^\d{1,12}$/.test(value))
      return fail(ctx, 'must be the App ID, a number such as 123456 (not the Client ID)', GITHUB_APP_ID_HINT);
    return value;
  }),
  GITHUB_PRIVATE_KEY: optionalText.transform((value, ctx) => {
    if (value === undefined) return value;
    const key = unescapePem(value);
    const problem = pemProblem(key);
    return problem ? fail(ctx, problem, GITHUB_PRIVATE_KEY_HINT) : key;
  }),
  GITHUB_PRIVATE_KEY_PATH: optionalText,
  GITHUB_WEBHOOK_SECRET: secret(GITHUB_WEBHOOK_SECRET_HINT),
  GITHUB_API_URL: baseUrl(DEFAULT_GITHUB_API_URL),
  GITHUB_WEB_URL: baseUrl(DEFAULT_GITHUB_WEB_URL),
};

/** The names of the set's variables; any one of them set turns on the check that all are. */
const CREDENTIALS = ['GITHUB_APP_ID', 'GITHUB_PRIVATE_KEY', 'GITHUB_PRIVATE_KEY_PATH', 'GITHUB_WEBHOOK_SECRET'] as const;

/** A partial set: what is missing, and where GitHub shows it. */
export function githubSetProblems(env: Readonly<Record<string, string>>): ConfigProblem[] {
  const has = (name: string) => env[name] !== undefined;
  const set = CREDENTIALS.filter(has);
  const problems: ConfigProblem[] = [];
  if (has('GITHUB_PRIVATE_KEY') && has('GITHUB_PRIVATE_KEY_PATH')) {
    problems.push({
      where: 'GITHUB_PRIVATE_KEY_PATH',
      message: 'both GITHUB_PRIVATE_KEY and GITHUB_PRIVATE_KEY_PATH are set — set one of them',
      hint: 'keep the file (GITHUB_PRIVATE_KEY_PATH) or the text (GITHUB_PRIVATE_KEY)',
    });
  }
  if (set.length === 0) return problems;
  const said = `${set.join(' and ')} ${set.length > 1 ? 'are' : 'is'} set`;
  const off = `or unset ${set.join(' and ')} to turn GitHub off`;
  if (!has('GITHUB_APP_ID')) {
    problems.push({
      where: 'GITHUB_APP_ID',
      message: `GitHub is half configured: ${said}, but GITHUB_APP_ID is not — set it`,
      hint: `${GITHUB_APP_ID_HINT}; ${off}`,
    });
  }
  if (!has('GITHUB_PRIVATE_KEY') && !has('GITHUB_PRIVATE_KEY_PATH')) {
    problems.push({
      where: 'GITHUB_PRIVATE_KEY_PATH',
      message: `GitHub is half configured: ${said}, but neither GITHUB_PRIVATE_KEY_PATH nor GITHUB_PRIVATE_KEY is — set one of them`,
      hint: `${GITHUB_PRIVATE_KEY_HINT}; ${off}`,
    });
  }
  if (!has('GITHUB_WEBHOOK_SECRET')) {
    problems.push({
      where: 'GITHUB_WEBHOOK_SECRET',
      message: `GitHub is half configured: ${said}, but GITHUB_WEBHOOK_SECRET is not — set it`,
      hint: `${GITHUB_WEBHOOK_SECRET_HINT}; ${off}`,
    });
  }
  return problems;
}

/** GitHub is on with its App ID (the rest is then required). */
export function githubIsOn(env: Readonly<Record<string, string | undefined>>): boolean {
  return env['GITHUB_APP_ID'] !== undefined;
}

/** The App's settings; the private key is read from `GITHUB_PRIVATE_KEY_PATH` when that is set. */
export function readGithubEnv(v: z.output<z.ZodObject<typeof githubEnvShape>>, cwd: string): { env: GithubEnv } | { problem: ConfigProblem } {
  let privateKey = v.GITHUB_PRIVATE_KEY;
  if (v.GITHUB_PRIVATE_KEY_PATH !== undefined) {
    const read = readPrivateKeyFile(v.GITHUB_PRIVATE_KEY_PATH, cwd);
    if (read.problem) return { problem: read.problem };
    privateKey = read.key;
  }
  return { env: { appId: v.GITHUB_APP_ID, privateKey, webhookSecret: v.GITHUB_WEBHOOK_SECRET, apiUrl: v.GITHUB_API_URL, webUrl: v.GITHUB_WEB_URL } };
}

/** Reads `GITHUB_PRIVATE_KEY_PATH` (relative to `cwd`); a problem names the variable, never the key. */
function readPrivateKeyFile(given: string, cwd: string): { key?: string; problem?: ConfigProblem } {
  const file = path.resolve(cwd, given);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      problem: {
        where: 'GITHUB_PRIVATE_KEY_PATH',
        message: code === 'ENOENT' ? `names a file that does not exist (${file})` : `cannot be read (${code ?? 'error'}): ${file}`,
        hint: GITHUB_PRIVATE_KEY_HINT,
      },
    };
  }
  const problem = pemProblem(text);
  if (problem) return { problem: { where: 'GITHUB_PRIVATE_KEY_PATH', message: `${file} ${problem}`, hint: GITHUB_PRIVATE_KEY_HINT } };
  return { key: text };
}
