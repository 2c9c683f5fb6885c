/**
 * Block Kit rendering of the Slack messages (docs/architecture.md §6): the status message edited in place, the
 * announcements of BLOCKED and end states, and the plain fallback `text` Slack shows in notifications.
 * Pure functions, no Slack calls.
 *
 * Everything that comes from people or the run API (titles, status texts, reasons) is escaped
 * (`&`, `<`, `>`), so a prompt cannot mention `@channel`, a user or hide a link. Only a bare user mention
 * such as `<@U123>` in texts we compose ourselves (who cancelled, notices) is kept, and the only links
 * are those we build from URLs we hold (a session, a pull request, a notice's links).
 */
import type { KnownBlock, SectionBlock } from '@slack/types';
import { isTerminalState } from '../core/ports/agent-runs.js';
import type { NoticePart, OutboxMessage, RunSnapshot, Ticket } from '../core/ports/messages.js';
import { partsOf, plainLink } from '../core/outbox/notice-parts.js';
import { renderText } from '../core/outbox/render-text.js';

/** `action_id` of the Cancel button; its `value` is the thread key (`slack:<channel>:<thread_ts>`). */
export const CANCEL_ACTION_ID = 'cancel_run';
/**
 * `action_id` of the Answer button on a BLOCKED announcement (docs/slack.md, docs/architecture.md §2): it
 * opens a modal whose text goes to the run as one follow-up. Its `value` is the run id.
 */
export const ANSWER_ACTION_ID = 'answer_run';
/** `action_id` of the "Open session" link button (Slack still sends an interaction for it). */
export const OPEN_SESSION_ACTION_ID = 'open_session';
/** Longest text of a section block Slack accepts. */
export const SECTION_TEXT_LIMIT = 3000;

/** Escapes `&`, `<` and `>` so Slack shows the text as written (no mentions, links or channel pings). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Like `escapeMrkdwn`, but user mentions written exactly as `<@U123>` / `<@W123>` stay mentions. */
export function escapeKeepingMentions(text: string): string {
  return escapeMrkdwn(text).replace(/&lt;@([UW][A-Z0-9]+)&gt;/g, '<@$1>');
}

/** Cuts (already escaped) text to `max` characters with `…`, never leaving half an entity or link. */
export function limitText(text: string, max = SECTION_TEXT_LIMIT): string {
  if (text.length <= max) return text;
  const cut = text
    .slice(0, max - 1)
    .replace(/&[a-z]{0,4}$/, '')
    .replace(/<[^>]*$/, '');
  return `${cut}…`;
}

/**
 * Where a status message is: before the run exists, a run state, stopping (a cancel was sent; the
 * run's CANCELLED follows), or the run could not be started.
 */
export type StatusStage =
  | { kind: 'received' }
  | { kind: 'run'; state: string }
  | { kind: 'stopping'; requestedBy?: string }
  | { kind: 'start_failed' }
  /** Held until an approver decides: nothing runs yet, so there is nothing to cancel. */
  | { kind: 'awaiting_approval' }
  /** Rejected, or expired without an approval: it never ran. */
  | { kind: 'not_approved'; outcome: 'rejected' | 'expired' };

/** What the status message shows. */
export interface StatusView {
  title: string;
  stage: StatusStage;
  /** Value of the Cancel button: the thread key (the destination). */
  threadKey: string;
  runId?: string;
  /** The run's status text, or why it could not start. */
  statusText?: string;
  sessionLink?: string;
  /** The request's own options as typed (`env=env_api model=model-x`). */
  options?: string;
  /** The issue the run is about and who asked there, when the run was asked for elsewhere (a Linear label). */
  about?: StatusAbout;
}

/** What the status message of a run asked for on another platform says about where it came from. */
export interface StatusAbout {
  ticket: Ticket;
  requester?: string;
}

const STATE_LABELS: Record<string, { emoji: string; label: string }> = {
  QUEUED: { emoji: ':hourglass_flowing_sand:', label: 'Queued' },
  PENDING: { emoji: ':hourglass_flowing_sand:', label: 'Pending' },
  CLAIMED: { emoji: ':gear:', label: 'Starting' },
  INPROGRESS: { emoji: ':hammer_and_wrench:', label: 'In progress' },
  BLOCKED: { emoji: ':raised_hand:', label: 'Waiting for input' },
  SUCCEEDED: { emoji: ':white_check_mark:', label: 'Succeeded' },
  FAILED: { emoji: ':x:', label: 'Failed' },
  ERROR: { emoji: ':x:', label: 'Error' },
  CANCELLED: { emoji: ':no_entry_sign:', label: 'Cancelled' },
};

/** Emoji and human label of a stage; an unknown run state is shown as it is (escaped). */
export function stateLabel(stage: StatusStage): { emoji: string; label: string } {
  if (stage.kind === 'received') return { emoji: ':eyes:', label: 'Received' };
  if (stage.kind === 'start_failed') return { emoji: ':x:', label: 'Failed to start' };
  if (stage.kind === 'awaiting_approval') return { emoji: ':hourglass_flowing_sand:', label: 'Waiting for approval' };
  if (stage.kind === 'not_approved') return { emoji: ':no_entry_sign:', label: stage.outcome === 'rejected' ? 'Rejected' : 'Expired without approval' };
  if (stage.kind === 'stopping') {
    return { emoji: ':octagonal_sign:', label: `Stopping${stage.requestedBy ? ` (requested by ${escapeKeepingMentions(stage.requestedBy)})` : ''}…` };
  }
  return STATE_LABELS[stage.state] ?? { emoji: ':grey_question:', label: escapeMrkdwn(stage.state) };
}

/** True while the stage can still be cancelled: received, or any run state but a known terminal one. */
export function isCancellable(stage: StatusStage): boolean {
  return stage.kind === 'received' || (stage.kind === 'run' && !isTerminalState(stage.state));
}

/**
 * The status message: title, state, run id once known, status text, an "Open session" link button
 * once there is a link, and Cancel while the run can still be cancelled. Block ids are stable, so an
 * edit replaces the same blocks.
 */
export function statusBlocks(view: StatusView): KnownBlock[] {
  const { emoji, label } = stateLabel(view.stage);
  const fields = [{ type: 'mrkdwn' as const, text: `*State*\n${emoji} ${label}` }];
  if (view.runId) fields.push({ type: 'mrkdwn', text: limitText(`*Run*\n\`${escapeMrkdwn(view.runId)}\``, 2000) });
  if (view.options) fields.push({ type: 'mrkdwn', text: limitText(`*Options*\n\`${escapeMrkdwn(view.options)}\``, 2000) });
  const blocks: KnownBlock[] = [section('status_title', `*${escapeMrkdwn(view.title)}*`)];
  if (view.about) blocks.push(section('status_about', aboutLine(view.about)));
  blocks.push({ type: 'section', block_id: 'status_state', fields });
  if (view.statusText) blocks.push(section('status_text', escapeMrkdwn(view.statusText)));
  const elements: Extract<KnownBlock, { type: 'actions' }>['elements'] = [];
  const session = safeUrl(view.sessionLink);
  if (session) {
    elements.push({ type: 'button', action_id: OPEN_SESSION_ACTION_ID, text: plain('Open session'), url: session });
  }
  if (isCancellable(view.stage)) {
    elements.push({
      type: 'button',
      action_id: CANCEL_ACTION_ID,
      text: plain('Cancel'),
      value: view.threadKey,
      style: 'danger',
      confirm: {
        title: plain('Cancel this run?'),
        text: plain('The agent stops working on it.'),
        confirm: plain('Cancel run'),
        deny: plain('Keep it running'),
      },
    });
  }
  if (elements.length > 0) blocks.push({ type: 'actions', block_id: 'status_actions', elements });
  return blocks;
}

/**
 * The new thread message for BLOCKED or an end state: SUCCEEDED "Done" with the session and every
 * pull request; FAILED / ERROR the status text and what to try; CANCELLED who did it; BLOCKED the
 * agent's question (quoted, bounded), how to answer, and an Answer button. A state announced by a newer tracker is shown as it is.
 */
export function announceBlocks(run: RunSnapshot, cancelledBy?: string): KnownBlock[] {
  const title = `*${escapeMrkdwn(run.title)}*`;
  const text = run.statusText ? limitText(escapeMrkdwn(run.statusText.trim()), 2500) : undefined;
  const blocks: KnownBlock[] = [];
  switch (run.state) {
    case 'SUCCEEDED':
      blocks.push(section('announce_result', `:white_check_mark: Done: ${title}`));
      break;
    case 'FAILED':
    case 'ERROR': {
      const how = run.state === 'FAILED' ? 'failed' : 'stopped with an error';
      blocks.push(section('announce_result', `:x: ${title} ${how}${text ? `: ${text}` : '.'}`));
      const session = run.sessionLink ? ', or open the session' : '';
      blocks.push(section('announce_hint', `To try again: reply in this thread to continue the run${session}.`));
      break;
    }
    case 'CANCELLED': {
      const who = cancelledBy ? ` by ${escapeKeepingMentions(cancelledBy)}` : '';
      blocks.push(section('announce_result', `:no_entry_sign: Cancelled${who}: ${title}`));
      break;
    }
    case 'BLOCKED':
      blocks.push(section('announce_result', `:raised_hand: ${title} needs your input${text ? `:\n${quote(text)}` : '.'}`));
      blocks.push(section('announce_hint', 'Reply in this thread to answer.'));
      blocks.push({
        type: 'actions',
        block_id: 'announce_actions',
        elements: [{ type: 'button', action_id: ANSWER_ACTION_ID, text: plain('Answer'), value: run.runId.slice(0, 2000), style: 'primary' }],
      });
      break;
    default:
      blocks.push(section('announce_result', `${title}: ${escapeMrkdwn(run.state)}${text ? ` — ${text}` : ''}`));
  }
  const links = linkLines(run);
  if (links) blocks.push(section('announce_links', links));
  return blocks;
}

/** The new thread message when a run could not be started. */
export function failedBlocks(title: string, reason: string): KnownBlock[] {
  return [section('failed_result', `:x: Could not start *${escapeMrkdwn(title)}*: ${escapeMrkdwn(reason)}`)];
}

/** A one-off note in the thread (composed by the bridge; user mentions in its words are kept, its links are links). */
export function noticeBlocks(parts: readonly NoticePart[]): KnownBlock[] {
  return [section('notice', noticeMrkdwn(parts))];
}

/**
 * A notice's words and links as mrkdwn: the words escaped (user mentions kept), each link
 * `<url|label>` — or, when Slack could not link its URL safely, its label and URL as escaped words.
 */
export function noticeMrkdwn(parts: readonly NoticePart[]): string {
  return parts
    .map((part) => {
      if (typeof part === 'string') return escapeKeepingMentions(part);
      const url = safeUrl(part.url);
      return url ? link(url, part.label || url) : escapeMrkdwn(plainLink(part));
    })
    .join('');
}

/**
 * The fallback `text` of a message (notifications, screen readers): the core's plain rendering with
 * the same escaping as the blocks, cut to the section limit.
 */
export function fallbackText(message: OutboxMessage): string {
  const e = escapeMrkdwn;
  const run = (r: RunSnapshot): RunSnapshot => ({
    ...r,
    title: e(r.title),
    state: e(r.state),
    ...(r.statusText !== undefined ? { statusText: e(r.statusText) } : {}),
    ...(r.sessionLink !== undefined ? { sessionLink: e(r.sessionLink) } : {}),
    pullRequests: r.pullRequests.map(e),
  });
  let safe: OutboxMessage;
  switch (message.kind) {
    case 'received':
      safe = { ...message, title: e(message.title) };
      break;
    case 'status':
      safe = { ...message, run: run(message.run) };
      break;
    case 'stopping':
      safe = { ...message, run: run(message.run), ...(message.requestedBy ? { requestedBy: escapeKeepingMentions(message.requestedBy) } : {}) };
      break;
    case 'announce':
      safe = { ...message, run: run(message.run), ...(message.cancelledBy ? { cancelledBy: escapeKeepingMentions(message.cancelledBy) } : {}) };
      break;
    case 'failed':
      safe = { ...message, title: e(message.title), reason: e(message.reason) };
      break;
    case 'notice':
      safe = { ...message, text: noticeMrkdwn(partsOf(message)) };
      break;
    case 'approval':
      safe = {
        ...message,
        title: e(message.title),
        route: e(message.route),
        ...(message.requester ? { requester: escapeKeepingMentions(message.requester) } : {}),
      };
      break;
    default:
      safe = message;
  }
  return limitText(renderText(safe));
}

/** `From Jira ENG-7 (linked) · asked by Ann`: the issue as a link when its URL is safe, everything escaped. */
function aboutLine(about: StatusAbout): string {
  const ref = about.ticket.ref ?? 'the issue';
  const url = safeUrl(about.ticket.url);
  const issue = url ? link(url, ref) : escapeMrkdwn(ref);
  // A row written before tickets named their tracker says only where it came from by its reference.
  const from = about.ticket.from ? `From ${escapeMrkdwn(about.ticket.from)} ` : 'From ';
  return `${from}${issue}${about.requester ? ` · asked by ${escapeMrkdwn(about.requester)}` : ''}`;
}

/** An http(s) URL without spaces that Slack accepts in a button or link, else undefined. */
export function safeUrl(url: string | undefined): string | undefined {
  if (url === undefined || url.length > 3000 || !/^https?:\/\/[^\s<>|]+$/i.test(url)) return undefined;
  return url;
}

/** Session and pull-request lines as mrkdwn links, as many as fit in one section. */
function linkLines(run: RunSnapshot): string | undefined {
  const lines: string[] = [];
  const session = safeUrl(run.sessionLink);
  if (session) lines.push(`Session: ${link(session, 'Open session')}`);
  const prs = run.pullRequests.map((url) => safeUrl(url)).filter((url): url is string => url !== undefined);
  let length = lines.join('\n').length;
  for (const [index, url] of prs.entries()) {
    const line = `Pull request: ${link(url, url)}`;
    if (length + line.length + 40 > SECTION_TEXT_LIMIT) {
      lines.push(`…and ${prs.length - index} more pull requests`);
      break;
    }
    lines.push(line);
    length += line.length + 1;
  }
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/** `<url|label>` with the characters mrkdwn treats specially escaped in both parts. */
export function link(url: string, label: string): string {
  return `<${url.replace(/&/g, '&amp;')}|${escapeMrkdwn(label)}>`;
}

/** Quotes every line (the text is escaped already, so `>` here is the only quote marker). */
function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => `>${line}`)
    .join('\n');
}

export function section(blockId: string, text: string): SectionBlock {
  return { type: 'section', block_id: blockId, text: { type: 'mrkdwn', text: limitText(text) } };
}

export function plain(text: string): { type: 'plain_text'; text: string; emoji: true } {
  return { type: 'plain_text', text, emoji: true };
}
