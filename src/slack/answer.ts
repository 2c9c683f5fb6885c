import type { KnownBlock, ModalView } from '@slack/types';
import type { TrackedRun } from '../core/ports/store.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import { ANSWER_ACTION_ID, escapeMrkdwn, limitText } from './blocks.js';
import { slackRequester } from './access.js';
import { threadKey } from './normalise.js';
import { interactionOrgs } from './slack-person.js';

/*
 * Answering a BLOCKED run in place: the announcement's Answer button
 * (`answer_run`, blocks.ts) opens a modal with one text field; its submission is one follow-up to that
 * run. Pure reading and rendering here; the listeners are in answer-listeners.ts.
 */

/** `callback_id` of the Answer modal. */
export const ANSWER_CALLBACK_ID = 'answer_run';
/** The modal's text field: its block id (where Slack shows an error) and action id. */
export const ANSWER_BLOCK_ID = 'answer';
/** Longest answer the modal takes (Slack's own limit for a plain_text_input is 3,000). */
export const ANSWER_MAX_LENGTH = 3000;

/** Where the Answer button was pressed and for which run; carried through the modal as its private_metadata. */
export interface AnswerTarget {
  /** The button's value: only a name to look up, never trusted as a run. */
  runId: string;
  channel: string;
  /** The thread the announcement is in: the follow-up's place (acknowledged there). */
  threadTs: string;
  /** The announcement with the button: the ✉️ goes on it. */
  messageTs: string;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const TS = /^\d{1,12}\.\d{1,12}$/;
const CHANNEL = /^[CDG][A-Z0-9]{2,40}$/;
const RUN_ID = /^[\w.:-]{1,200}$/;

/** A target whose every part has the shape Slack and the run API use; undefined otherwise. */
function checkedTarget(target: Partial<Record<keyof AnswerTarget, unknown>>): AnswerTarget | undefined {
  const { runId, channel, threadTs, messageTs } = target;
  if (typeof runId !== 'string' || !RUN_ID.test(runId) || typeof channel !== 'string' || !CHANNEL.test(channel)) return undefined;
  if (typeof threadTs !== 'string' || !TS.test(threadTs) || typeof messageTs !== 'string' || !TS.test(messageTs)) return undefined;
  return { runId, channel, threadTs, messageTs };
}

/** A click on the Answer button (`block_actions`), read defensively; undefined when its shape is not Slack's. */
export function readAnswerClick(body: unknown): { user: string; orgs: string[]; triggerId: string; target: AnswerTarget } | undefined {
  const fields = record(body);
  const user = text(record(fields?.['user'])?.['id']);
  const triggerId = text(fields?.['trigger_id']);
  const action = (Array.isArray(fields?.['actions']) ? (fields['actions'] as unknown[]) : []).map(record).find((a) => a?.['action_id'] === ANSWER_ACTION_ID);
  const container = record(fields?.['container']);
  const message = record(fields?.['message']);
  const messageTs = text(container?.['message_ts']) ?? text(message?.['ts']);
  const target = checkedTarget({
    runId: action?.['value'],
    channel: text(container?.['channel_id']) ?? text(record(fields?.['channel'])?.['id']),
    // A top-level announcement (a run reported at a bare channel) is its own thread.
    threadTs: text(container?.['thread_ts']) ?? text(message?.['thread_ts']) ?? messageTs,
    messageTs,
  });
  if (!user || !/^[UW][A-Z0-9]{2,40}$/.test(user) || !triggerId || !target) return undefined;
  return { user, orgs: interactionOrgs(body), triggerId, target };
}

/** The Answer modal: the run's title, one multiline field; the target rides along as private_metadata. */
export function answerModal(target: AnswerTarget, run: Pick<TrackedRun, 'runId' | 'title'>): ModalView {
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      block_id: 'answer_run',
      text: { type: 'mrkdwn', text: limitText(`The agent is waiting for you on *${escapeMrkdwn(run.title ?? run.runId)}*.`) },
    },
    {
      type: 'input',
      block_id: ANSWER_BLOCK_ID,
      label: { type: 'plain_text', text: 'Your answer' },
      element: { type: 'plain_text_input', action_id: 'text', multiline: true, max_length: ANSWER_MAX_LENGTH },
    },
  ];
  return {
    type: 'modal',
    callback_id: ANSWER_CALLBACK_ID,
    private_metadata: JSON.stringify(target),
    title: { type: 'plain_text', text: 'Answer the agent' },
    submit: { type: 'plain_text', text: 'Send' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks,
  };
}

/** A modal that only says why the person cannot answer here (seen by them alone). */
export function refusalModal(reason: string): ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: 'Answer the agent' },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: limitText(escapeMrkdwn(reason)) } }],
  };
}

/** What a submitted Answer modal says. */
export interface AnswerSubmission {
  user: string;
  /** The organisations Slack says the person belongs to (slack-person.ts `interactionOrgs`). */
  orgs: readonly string[];
  viewId: string;
  text: string;
  target: AnswerTarget;
}

/** Reads a `view_submission` of the Answer modal defensively; undefined when its shape (or metadata) is not ours. */
export function readAnswerSubmission(body: unknown): AnswerSubmission | undefined {
  const user = text(record(record(body)?.['user'])?.['id']);
  const view = record(record(body)?.['view']);
  const viewId = text(view?.['id']);
  const value = record(record(record(record(view?.['state'])?.['values'])?.[ANSWER_BLOCK_ID])?.['text'])?.['value'];
  let metadata: Record<string, unknown> | undefined;
  try {
    metadata = record(JSON.parse(typeof view?.['private_metadata'] === 'string' ? view['private_metadata'] : ''));
  } catch {
    return undefined;
  }
  const target = metadata && checkedTarget(metadata);
  if (!user || !/^[UW][A-Z0-9]{2,40}$/.test(user) || !viewId || !target) return undefined;
  return { user, orgs: interactionOrgs(body), viewId, text: typeof value === 'string' ? value : '', target };
}

/** What is wrong with the answer itself (shown under the field); undefined when it can be sent. */
export function answerError(submission: AnswerSubmission): string | undefined {
  if (!submission.text.trim()) return 'Write your answer to the agent.';
  if (submission.text.length > ANSWER_MAX_LENGTH) return `Keep it under ${ANSWER_MAX_LENGTH} characters, or reply in the thread.`;
  return undefined;
}

/** What someone is told when the button's run is not one this service knows. */
export function unknownRunText(runId: string): string {
  return `I do not know the run ${runId.slice(0, 100)} any more, so there is nothing to answer here.`;
}

/**
 * The follow-up an answer becomes: to the run the button names (not the thread's latest run), placed
 * in the announcement's thread (acknowledged there with ✉️ on the announcement, the run's other places
 * told one was sent). Keyed by the modal's view id, so a re-sent submission sends nothing.
 */
export function answerTrigger(submission: AnswerSubmission): TriggerInput {
  const { target } = submission;
  return {
    kind: 'followup',
    key: `slack:answer:${submission.viewId}`,
    source: 'slack',
    anchor: threadKey(target.channel, target.threadTs),
    payload: {
      message: submission.text.trim(),
      runId: target.runId,
      requester: slackRequester({ id: submission.user, orgs: submission.orgs }),
      reference: { channel: target.channel, ts: target.messageTs },
    },
  };
}
