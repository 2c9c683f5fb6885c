/**
 * The Adaptive Cards the bot posts (docs/teams.md): the status card edited in place (title, state, run
 * id, status text, **Open session** and **Stop**), the announcements of BLOCKED and end states, a
 * failure, a notice and an approval question. Pure functions, no calls.
 *
 * Every word from people or the run API goes in a `TextRun`, which Teams shows as written: no Markdown,
 * so a title cannot hide a link or an image. The only links are the bridge's own (a session, a pull
 * request, a notice's links): `Action.OpenUrl` buttons, or a `TextRun`'s `selectAction`, https only.
 */
import { isTerminalState } from '../core/ports/agent-runs.js';
import type { NoticePart, RunSnapshot } from '../core/ports/messages.js';

/** The verb of the status card's **Stop** (`Action.Execute`), with `data.runId` once the run has one. */
export const CANCEL_VERB = 'cancel_run';
/** The verbs of an approval question's **Approve** and **Reject**, with `data.approvalId`. */
export const APPROVE_VERB = 'approve_run';
export const REJECT_VERB = 'reject_run';

export const CARD_CONTENT_TYPE = 'application/vnd.microsoft.card.adaptive';

/** Teams shows at most about 28 KB of a message; a text is cut well below. */
const TEXT_LIMIT = 3_000;

type Json = Record<string, unknown>;

export interface AdaptiveCard extends Json {
  type: 'AdaptiveCard';
  version: string;
  body: Json[];
  actions?: Json[];
}

const cut = (text: string, max = TEXT_LIMIT) => ([...text].length <= max ? text : `${[...text].slice(0, max - 1).join('')}…`);

/** An https URL we may link to; anything else is not linked. */
export function linkable(url: string | undefined): url is string {
  if (!url) return false;
  try {
    return new URL(url).protocol === 'https:' || /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\//.test(url);
  } catch {
    return false;
  }
}

const run = (text: string, style: Json = {}): Json => ({ type: 'TextRun', text: cut(text), ...style });
const line = (...inlines: Json[]): Json => ({ type: 'RichTextBlock', inlines });
const card = (body: Json[], actions: Json[] = []): AdaptiveCard => ({
  type: 'AdaptiveCard',
  $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
  version: '1.4',
  body,
  ...(actions.length > 0 && { actions }),
});
const openUrl = (title: string, url: string): Json => ({ type: 'Action.OpenUrl', title, url });

const STATE_LABELS: Record<string, string> = {
  QUEUED: '⏳ Queued',
  PENDING: '⏳ Pending',
  CLAIMED: '⚙️ Starting',
  INPROGRESS: '🛠️ In progress',
  BLOCKED: '✋ Waiting for input',
  SUCCEEDED: '✅ Succeeded',
  FAILED: '❌ Failed',
  ERROR: '❌ Error',
  CANCELLED: '🚫 Cancelled',
};

/** Where a status card is. */
export type CardStage =
  | { kind: 'received'; requester?: string; about?: string }
  | { kind: 'run'; run: RunSnapshot; about?: string }
  | { kind: 'stopping'; run: RunSnapshot; requestedBy?: string; about?: string }
  | { kind: 'start_failed'; title: string; reason: string; about?: string }
  | { kind: 'awaiting_approval'; about?: string }
  | { kind: 'not_approved'; outcome: 'rejected' | 'expired'; about?: string };

/** The status card: edited in place at every state, **Stop** while the run can still be stopped. */
export function statusCard(title: string, stage: CardStage): AdaptiveCard {
  const body: Json[] = [line(run(title, { weight: 'Bolder', size: 'Medium' }))];
  if (stage.about) body.push(line(run(stage.about, { isSubtle: true })));
  const actions: Json[] = [];
  switch (stage.kind) {
    case 'received':
      body.push(line(run('State: ', { weight: 'Bolder' }), run(`👀 Received${stage.requester ? ` from ${stage.requester}` : ''} — starting a run…`)));
      actions.push({ type: 'Action.Execute', title: 'Stop', verb: CANCEL_VERB, data: {} });
      break;
    case 'awaiting_approval':
      body.push(line(run('State: ', { weight: 'Bolder' }), run('⏳ Waiting for approval')));
      break;
    case 'not_approved':
      body.push(line(run('State: ', { weight: 'Bolder' }), run(stage.outcome === 'rejected' ? '🚫 Rejected' : '⌛ Expired without approval')));
      break;
    case 'start_failed':
      body.push(line(run('State: ', { weight: 'Bolder' }), run('❌ Failed to start')), line(run(stage.reason)));
      break;
    case 'run':
    case 'stopping': {
      const label =
        stage.kind === 'stopping'
          ? `🛑 Stopping${stage.requestedBy ? ` (requested by ${stage.requestedBy})` : ''}…`
          : (STATE_LABELS[stage.run.state] ?? stage.run.state);
      body.push(
        line(run('State: ', { weight: 'Bolder' }), run(label)),
        line(run('Run: ', { weight: 'Bolder' }), run(stage.run.runId, { fontType: 'Monospace' })),
      );
      if (stage.run.options) body.push(line(run('Options: ', { weight: 'Bolder' }), run(stage.run.options, { fontType: 'Monospace' })));
      if (stage.run.statusText) body.push(line(run(stage.run.statusText)));
      if (linkable(stage.run.sessionLink)) actions.push(openUrl('Open session', stage.run.sessionLink));
      if (stage.kind === 'run' && !isTerminalState(stage.run.state))
        actions.push({ type: 'Action.Execute', title: 'Stop', verb: CANCEL_VERB, data: { runId: stage.run.runId } });
      break;
    }
  }
  return card(body, actions);
}

/** BLOCKED or an end state, as a new message: what happened, what to do, the session and every pull request. */
export function announceCard(snapshot: RunSnapshot, cancelledBy?: string): AdaptiveCard {
  const title = run(snapshot.title, { weight: 'Bolder' });
  const text = snapshot.statusText?.trim();
  const body: Json[] = [];
  switch (snapshot.state) {
    case 'SUCCEEDED':
      body.push(line(run('✅ Done: '), title));
      break;
    case 'FAILED':
    case 'ERROR':
      body.push(line(run('❌ '), title, run(snapshot.state === 'FAILED' ? ' failed' : ' stopped with an error'), run(text ? `: ${text}` : '.')));
      body.push(
        line(
          run(`To try again: reply in this thread to continue the run${linkable(snapshot.sessionLink) ? ', or open the session' : ''}.`, { isSubtle: true }),
        ),
      );
      break;
    case 'CANCELLED':
      body.push(line(run(`🚫 Cancelled${cancelledBy ? ` by ${cancelledBy}` : ''}: `), title));
      break;
    case 'BLOCKED':
      body.push(line(run('✋ '), title, run(' needs your input')));
      if (text) body.push(line(run(text)));
      body.push(line(run('Reply in this thread to answer.', { isSubtle: true })));
      break;
    default:
      body.push(line(title, run(`: ${snapshot.state}${text ? ` — ${text}` : ''}`)));
  }
  const actions: Json[] = [];
  if (linkable(snapshot.sessionLink)) actions.push(openUrl('Open session', snapshot.sessionLink));
  snapshot.pullRequests
    .filter(linkable)
    .forEach((url, index, all) => actions.push(openUrl(all.length > 1 ? `Pull request ${index + 1}` : 'Pull request', url)));
  for (const url of snapshot.pullRequests)
    body.push(line(run('Pull request: '), run(url, linkable(url) ? { selectAction: openUrl(url, url), color: 'Accent' } : {})));
  return card(body, actions);
}

/** A one-off note: its words as written, its links (ours) as links. */
export function noticeCard(parts: readonly NoticePart[]): AdaptiveCard {
  const inlines = parts.map((part) => {
    if (typeof part === 'string') return run(part);
    const { url } = part;
    const label = part.label || url;
    return linkable(url) ? run(label, { selectAction: openUrl(label, url), color: 'Accent' }) : run(label === part.url ? label : `${label} (${part.url})`);
  });
  return card([line(...inlines)]);
}

/** A request waiting for approval: the question and, until decided, **Approve** and **Reject**. */
export function approvalCard(question: {
  approvalId: string;
  title: string;
  requester?: string;
  route: string;
  expiresAt: number;
  outcome?: 'rejected' | 'expired';
  threadUrl?: string;
}): AdaptiveCard {
  const body: Json[] = [line(run('Waiting for approval: ', { weight: 'Bolder' }), run(question.title))];
  if (question.outcome) {
    return card([line(run(question.title, { weight: 'Bolder' })), line(run(question.outcome === 'rejected' ? '🚫 Rejected' : '⌛ Expired without approval'))]);
  }
  body.push(
    line(
      run(
        `Asked by ${question.requester ?? 'someone'} on route ${question.route}. Expires ${new Date(question.expiresAt).toISOString().replace(/\.\d+Z$/, 'Z')}.`,
        { isSubtle: true },
      ),
    ),
  );
  const data = { approvalId: question.approvalId };
  const actions: Json[] = [
    { type: 'Action.Execute', title: 'Approve', verb: APPROVE_VERB, data, style: 'positive' },
    { type: 'Action.Execute', title: 'Reject', verb: REJECT_VERB, data, style: 'destructive' },
  ];
  if (linkable(question.threadUrl)) actions.push(openUrl('Open the request', question.threadUrl));
  return card(body, actions);
}
