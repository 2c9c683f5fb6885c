/**
 * The Markdown of the comments agent-bridge writes on a Linear issue (design.md §5): the start
 * comment (edited at every state), one comment per BLOCKED and end state, failures and notices.
 */
import type { OutboxMessage, RunSnapshot } from '../core/messages.js';
import { renderText } from '../core/render-text.js';

const BRAND = '**agent-bridge**';

/** The start comment before the run exists. */
export function receivedComment(title: string, requester: string | undefined): string {
  return `${BRAND} · ${title}\n\nReceived${requester ? ` from ${requester}` : ''} — starting a run…`;
}

/** The start comment at a run's current state. */
export function statusComment(run: RunSnapshot): string {
  const lines = [`${BRAND} · ${run.title}`, '', `State: **${run.state}**${run.statusText ? ` — ${run.statusText}` : ''}`, `Run: \`${run.runId}\``];
  if (run.sessionLink) lines.push(`[Open session](${run.sessionLink})`);
  for (const url of run.pullRequests) lines.push(`Pull request: ${url}`);
  return lines.join('\n');
}

/** The start comment when the run could not be started. */
export function startFailedComment(title: string, reason: string): string {
  return `${BRAND} · ${title}\n\nState: **not started** — ${reason}`;
}

/**
 * A new comment: BLOCKED and end states, failures, notices. The words are the core's (render-text),
 * so Slack, Linear and the log say the same; only "reply in this thread" becomes how Linear answers.
 */
export function messageComment(message: OutboxMessage, handle: string): string {
  const text = renderText(message);
  if (message.kind === 'announce' && message.run.state === 'BLOCKED') {
    return text.replace('Reply in this thread to answer.', `Answer with a comment starting with ${handle}.`);
  }
  return text;
}
