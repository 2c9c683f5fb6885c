/**
 * The New run form's rules: what it accepts, and how a submission is keyed so that sending the same
 * form twice (a double click, a retried POST) stores one request. Each rendering of the form carries a
 * fresh random `request` field; the trigger's key is derived from it and the session, so it is stable
 * for one form, unguessable, and nobody else's session can aim at it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { titleFrom } from '../core/title.js';
import type { RouteChoice } from './route-choices.js';

/** Longest prompt accepted, in characters: a long request with pasted context, not a file. */
export const PROMPT_LIMIT = 16_000;
/** Biggest form body: a prompt at the limit in any script, percent-encoded (up to 12 bytes a character). */
export const NEW_RUN_LIMIT_BYTES = 256 * 1024;
const REQUEST_ID = /^[0-9a-f]{24}$/;

/** What the person typed, to show the form again as they left it. */
export interface NewRunValues {
  prompt: string;
  route: string;
  title: string;
  request: string;
}

/** A submission that may be stored, or why not (in words for the person). */
export type ReadNewRun =
  { kind: 'start'; prompt: string; title: string; route: string | undefined; request: string } | { kind: 'problem'; problem: string; values: NewRunValues };

/** A fresh `request` field for one rendering of the form. */
export function newRequestId(): string {
  return randomBytes(12).toString('hex');
}

/** Whether `id` looks like a request id (the starting page's query). */
export function isRequestId(id: string): boolean {
  return REQUEST_ID.test(id);
}

/** The request's id for this session: the trigger is `console:<id>`, shown at `log:console:<id>`. */
export function requestIdFor(sid: string, request: string): string {
  return createHash('sha256').update(`${sid}:${request}`).digest('hex').slice(0, 24);
}

/** Reads and checks a submitted form against the routes on offer. */
export function readNewRun(form: URLSearchParams, choices: readonly RouteChoice[]): ReadNewRun {
  const values: NewRunValues = {
    prompt: form.get('prompt') ?? '',
    route: (form.get('route') ?? '').trim(),
    title: (form.get('title') ?? '').trim(),
    request: form.get('request') ?? '',
  };
  const problem = (text: string): ReadNewRun => ({ kind: 'problem', problem: text, values });
  if (!isRequestId(values.request)) return problem('This form is out of date or incomplete: nothing was started. Check it and start again.');
  const prompt = values.prompt.trim();
  if (prompt === '') return problem('Write a prompt: say what the agent should do. Nothing was started.');
  const length = [...prompt].length;
  if (length > PROMPT_LIMIT) return problem(`The prompt is ${length} characters long; at most ${PROMPT_LIMIT} are accepted. Nothing was started.`);
  if (values.route !== '' && !choices.some((choice) => choice.name === values.route)) {
    return problem(`No route named “${values.route.slice(0, 80)}” is configured: choose one from the list. Nothing was started.`);
  }
  return {
    kind: 'start',
    prompt,
    title: titleFrom(values.title !== '' ? values.title : prompt, 'Console run'),
    route: values.route === '' ? undefined : values.route,
    request: values.request,
  };
}
