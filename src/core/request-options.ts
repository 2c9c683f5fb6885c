/**
 * Options at the start of a request: `[env=env_api model=model-x skill=owner/repo:fix-bug]`.
 * Platform-neutral: a chat mention, `/agent` and an issue's request are parsed alike, and a route's
 * `overrides` say which options it takes and which values.
 */

/** The agent config fields a request may set. */
export const OPTION_FIELDS = ['environment_id', 'model_id', 'skill_spec'] as const;
export type OptionField = (typeof OPTION_FIELDS)[number];

/** Short names people type; the full field names are accepted too. */
const SHORT_NAMES: Readonly<Record<string, OptionField>> = { env: 'environment_id', model: 'model_id', skill: 'skill_spec' };
const SHORT_OF: Readonly<Record<OptionField, string>> = { environment_id: 'env', model_id: 'model', skill_spec: 'skill' };

/** Option values as typed, by config field. */
export type RequestOptions = Partial<Record<OptionField, string>>;

/** What a route lets a request set: per field a list of values, or `"*"` for any value. */
export type Overrides = Partial<Record<OptionField, readonly string[] | '*'>>;

/**
 * What the start of a request holds: no options (`none`: the text does not begin with `[key=…`, so
 * `[WIP] fix it` stays a plain request), options and the text after them, or options that cannot be
 * read (`invalid`, with the problem in words).
 */
export type SplitRequest =
  | { kind: 'none'; text: string }
  | { kind: 'options'; options: RequestOptions; text: string; block: string }
  | { kind: 'invalid'; problem: string; block: string };

// Identifiers, paths and specs (owner/repo:skill, model@version) but nothing that could be markup.
const VALUE = /^[A-Za-z0-9._:/@+-]+$/;
const OPENING = /^\[\s*[A-Za-z_]+\s*=/;

/** Splits the options off the start of `text` (leading blank space ignored). */
export function splitRequestOptions(text: string): SplitRequest {
  const start = text.trimStart();
  if (!OPENING.test(start)) return { kind: 'none', text };
  const close = start.indexOf(']');
  const newline = start.search(/\r?\n/);
  if (close < 0 || (newline >= 0 && newline < close)) {
    const block = newline >= 0 ? start.slice(0, newline) : start;
    return { kind: 'invalid', problem: 'the options bracket is not closed on its line — write it as [env=… model=…]', block };
  }
  const block = start.slice(0, close + 1);
  const inner = block.slice(1, -1);
  if (inner.includes('[')) return { kind: 'invalid', problem: 'the options bracket holds another "["', block };
  const options: RequestOptions = {};
  for (const token of inner.trim().split(/\s+/)) {
    const equals = token.indexOf('=');
    if (equals <= 0) return { kind: 'invalid', problem: `"${clip(token)}" is not key=value`, block };
    const key = token.slice(0, equals).toLowerCase();
    const value = token.slice(equals + 1);
    const field = SHORT_NAMES[key] ?? (OPTION_FIELDS as readonly string[]).find((name) => name === key);
    if (!field) return { kind: 'invalid', problem: `unknown option "${clip(key)}" — the options are env, model and skill`, block };
    if (options[field as OptionField] !== undefined) return { kind: 'invalid', problem: `the option ${SHORT_OF[field as OptionField]} is given twice`, block };
    if (value === '') return { kind: 'invalid', problem: `the option ${SHORT_OF[field as OptionField]} has no value`, block };
    if (!VALUE.test(value)) {
      return { kind: 'invalid', problem: `the value of ${SHORT_OF[field as OptionField]} may hold only letters, digits and . _ : / @ + -`, block };
    }
    options[field as OptionField] = value;
  }
  return { kind: 'options', options, text: start.slice(close + 1).trim(), block };
}

/** The request without its leading options, when they can be read; else the text unchanged. */
export function withoutRequestOptions(text: string): string {
  const split = splitRequestOptions(text);
  return split.kind === 'options' ? split.text : text;
}

/** The options as people typed them, short names first: `env=env_api model=model-x`. */
export function describeOptions(options: RequestOptions): string {
  return OPTION_FIELDS.flatMap((field) => (options[field] !== undefined ? [`${SHORT_OF[field]}=${options[field]}`] : [])).join(' ');
}

/** What a route allows, in words: `env: env_web, env_api; model: any`, or that it allows nothing. */
export function describeOverrides(overrides: Overrides | undefined): string {
  const parts = OPTION_FIELDS.flatMap((field) => {
    const allowed = overrides?.[field];
    if (allowed === undefined || (allowed !== '*' && allowed.length === 0)) return [];
    return [`${SHORT_OF[field]}: ${allowed === '*' ? 'any value' : allowed.join(', ')}`];
  });
  return parts.length === 0 ? 'no options are allowed here' : `allowed here — ${parts.join('; ')}`;
}

/**
 * Why `options` may not be used under `overrides`, naming what may; undefined when every option is
 * allowed. Values compare exactly (environment and model ids are case-sensitive).
 */
export function optionsRefusal(options: RequestOptions, overrides: Overrides | undefined): string | undefined {
  const refused = OPTION_FIELDS.filter((field) => {
    const value = options[field];
    if (value === undefined) return false;
    const allowed = overrides?.[field];
    return allowed === undefined || (allowed !== '*' && !allowed.includes(value));
  });
  if (refused.length === 0) return undefined;
  const named = refused.map((field) => `${SHORT_OF[field]}=${options[field]}`).join(' ');
  return `The option${refused.length > 1 ? 's' : ''} ${named} ${refused.length > 1 ? 'are' : 'is'} not allowed here; ${describeOverrides(overrides)}. No run was started.`;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}
