import { titleFrom } from '../core/title.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import { slackRequester } from './access.js';
import type { RouteChoice } from './home-view.js';
import { interactionOrgs } from './slack-person.js';

/** What a submitted Start a run modal says. */
export interface StartRunSubmission {
  user: string;
  /** The organisations Slack says the person belongs to (slack-person.ts `interactionOrgs`). */
  orgs: readonly string[];
  viewId: string;
  text: string;
  /** The picked route's value; undefined when the modal offered none. */
  route: string | undefined;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** Reads a `view_submission` of the Start a run modal defensively; undefined when its shape is not Slack's. */
export function readStartRunSubmission(body: unknown): StartRunSubmission | undefined {
  const user = record(record(body)?.['user'])?.['id'];
  const view = record(record(body)?.['view']);
  const values = record(record(view?.['state'])?.['values']);
  if (typeof user !== 'string' || !user || typeof view?.['id'] !== 'string' || !view['id']) return undefined;
  const text = record(record(values?.['request'])?.['text'])?.['value'];
  const route = record(record(record(values?.['route'])?.['route'])?.['selected_option'])?.['value'];
  return {
    user,
    orgs: interactionOrgs(body),
    viewId: view['id'],
    text: typeof text === 'string' ? text : '',
    route: typeof route === 'string' ? route : undefined,
  };
}

/** Slack shows these under the field in the modal (`response_action: errors`). */
export type ModalErrors = Record<string, string>;

/** What is wrong with a submission, by block id; undefined when it can start a run. */
export function submissionErrors(submission: StartRunSubmission, choices: readonly RouteChoice[]): ModalErrors | undefined {
  if (!submission.text.trim()) return { request: 'Say what the agent should do.' };
  if (submission.route !== undefined && !choices.some((choice) => choice.value === submission.route)) return { route: 'Pick one of the routes listed.' };
  return undefined;
}

/**
 * A run started from the Home tab: reported in the person's direct message with the bot (a status
 * message there starts its thread, which then steers the run), routed as the picked channel's route.
 * Keyed by the modal's view id, so a re-sent submission starts nothing.
 */
export function startRunTrigger(submission: StartRunSubmission): TriggerInput {
  const text = submission.text.trim();
  return {
    kind: 'start',
    key: `slack:view:${submission.viewId}`,
    source: 'slack',
    anchor: `slack:${submission.user}:home-${submission.viewId}`,
    payload: {
      prompt: text,
      title: titleFrom(text),
      origin: { source: 'slack', channel: submission.route ?? '*' },
      destinations: [`slack:${submission.user}`],
      requester: slackRequester({ id: submission.user, orgs: submission.orgs }),
    },
  };
}
