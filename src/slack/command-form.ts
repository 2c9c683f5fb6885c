/**
 * The fields of a slash command, checked before anything reads them. Slack sends each
 * field exactly once and ids in a fixed shape; a form that is signed but breaks that (a field sent
 * twice, an id missing or with extra parts) would otherwise crash a listener, credit a run to
 * `<@undefined>`, dedupe every such command under one key, or start a run no message can reach.
 */

/** The slash-command fields we read, each present once and in Slack's shape. */
export interface SlashCommandFields {
  command: string;
  text: string;
  user_id: string;
  channel_id: string;
  team_id: string;
  trigger_id: string;
  response_url: string;
}

export type SlashCommandCheck = { ok: true; fields: SlashCommandFields } | { ok: false; field: string; problem: string };

/** How long a field may be; Slack's ids are ~11 characters, trigger ids ~50, response URLs ~100. */
const MAX_ID = 40;
const MAX_TRIGGER_ID = 200;
const MAX_URL = 2_000;

const shaped = (pattern: RegExp, what: string) => (value: string) => (pattern.test(value) ? undefined : `is not ${what}`);

/**
 * Each field and what it must look like. Ids are uppercase letters and digits after Slack's prefix;
 * the trigger id becomes part of our keys and anchors (`slack:cmd:<trigger_id>`), so it may hold no `:`.
 */
const RULES: Record<keyof SlashCommandFields, (value: string) => string | undefined> = {
  command: shaped(/^\/[^\s/]{1,32}$/, 'a slash command'),
  // Text may be empty (`/agent` alone): only its presence and count matter.
  text: () => undefined,
  user_id: shaped(new RegExp(`^[UW][A-Z0-9]{1,${MAX_ID}}$`), 'a Slack user id'),
  channel_id: shaped(new RegExp(`^[CGD][A-Z0-9]{1,${MAX_ID}}$`), 'a Slack channel id'),
  team_id: shaped(new RegExp(`^T[A-Z0-9]{1,${MAX_ID}}$`), 'a Slack team id'),
  trigger_id: shaped(new RegExp(`^[A-Za-z0-9._-]{1,${MAX_TRIGGER_ID}}$`), 'a Slack trigger id'),
  response_url: (value) => (value.length <= MAX_URL && /^https:\/\/[^\s]+$/.test(value) ? undefined : 'is not an https URL'),
};

/**
 * Checks a slash command's fields as parsed from the form (a repeated field parses to an array) or
 * received over Socket Mode. Never echoes a value: the problem names the field only.
 */
export function checkSlashCommand(fields: Readonly<Record<string, unknown>>): SlashCommandCheck {
  const checked: Partial<SlashCommandFields> = {};
  for (const [field, rule] of Object.entries(RULES) as Array<[keyof SlashCommandFields, (value: string) => string | undefined]>) {
    const value = fields[field];
    if (value === undefined) return { ok: false, field, problem: 'is missing' };
    if (Array.isArray(value)) return { ok: false, field, problem: 'was sent more than once' };
    if (typeof value !== 'string') return { ok: false, field, problem: 'is not text' };
    const problem = rule(value);
    if (problem) return { ok: false, field, problem };
    checked[field] = value;
  }
  // Fields we do not read (user_name, channel_name, …) still come once each from Slack.
  const repeated = Object.entries(fields).find(([, value]) => Array.isArray(value));
  // The name is the sender's: shown only when it is a plain field name.
  if (repeated) return { ok: false, field: /^[a-z_]{1,40}$/.test(repeated[0]) ? repeated[0] : 'other field', problem: 'was sent more than once' };
  return { ok: true, fields: checked as SlashCommandFields };
}

/** The private answer to a refused command: what was wrong, and that nothing happened. */
export function refusedCommandText(check: Extract<SlashCommandCheck, { ok: false }>): string {
  return `Sorry, I cannot read this command: its \`${check.field}\` ${check.problem}. Nothing was started; please try again, and tell whoever runs agent-bridge if it keeps happening.`;
}
