import type { View } from '@slack/types';
import type { AccessPolicy } from '../core/ports/intake.js';
import type { Logger } from '../core/ports/logger.js';
import type { TrackedRunRepository } from '../core/ports/store.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import { ANSWER_ACTION_ID } from './blocks.js';
import {
  ANSWER_BLOCK_ID,
  ANSWER_CALLBACK_ID,
  answerError,
  answerModal,
  answerTrigger,
  readAnswerClick,
  readAnswerSubmission,
  refusalModal,
  unknownRunText,
} from './answer.js';
import { slackUserRefusal } from './access.js';
import type { ListenerApp } from './event-router.js';

export interface AnswerListenerDeps {
  access: AccessPolicy;
  /** The button's run is looked up, never trusted. */
  trackedRuns: Pick<TrackedRunRepository, 'get'>;
  /** `views.open` on its own short-timeout client: the click's trigger_id expires in 3 s. */
  openModal: (triggerId: string, view: View) => Promise<unknown>;
  /** Stores a trigger as every other listener does (the listeners' `submit`). */
  submit: (trigger: TriggerInput) => Promise<void>;
  logger: Logger;
}

/**
 * The Answer button on a BLOCKED announcement and its modal (docs/slack.md "Answering a waiting run").
 * Someone the access policy refuses, or a button whose run this service does not know, gets a
 * modal saying why (seen by them alone) and nothing is stored; the submission is checked again.
 */
export function registerAnswerListeners(app: ListenerApp, deps: AnswerListenerDeps): void {
  app.action({ action_id: ANSWER_ACTION_ID, type: 'block_actions' }, async ({ ack, body }) => {
    await ack();
    const click = readAnswerClick(body);
    if (!click) return;
    const run = await deps.trackedRuns.get(click.target.runId);
    const refusal = slackUserRefusal(deps.access, { id: click.user, orgs: click.orgs }) ?? (run ? undefined : unknownRunText(click.target.runId));
    // As the Home tab's Start a run: the one Slack call a listener makes, bounded by its client's timeout;
    // a failure costs only the modal (the person clicks again or replies in the thread).
    try {
      const view = run && refusal === undefined ? answerModal(click.target, run) : refusalModal(refusal ?? unknownRunText(click.target.runId));
      await deps.openModal(click.triggerId, view);
    } catch (error) {
      deps.logger.warn({ code: (error as { code?: unknown }).code }, 'could not open the Answer modal');
    }
  });

  // A submission: refused or empty input is shown under the field and nothing is stored; else one follow-up.
  app.view(ANSWER_CALLBACK_ID, async ({ ack, body }) => {
    const submission = readAnswerSubmission(body);
    if (!submission) return ack();
    const refusal =
      slackUserRefusal(deps.access, { id: submission.user, orgs: submission.orgs }) ??
      answerError(submission) ??
      ((await deps.trackedRuns.get(submission.target.runId)) ? undefined : unknownRunText(submission.target.runId));
    if (refusal !== undefined) return ack({ response_action: 'errors', errors: { [ANSWER_BLOCK_ID]: refusal } });
    await deps.submit(answerTrigger(submission));
    return ack();
  });
}
