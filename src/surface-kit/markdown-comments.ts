/**
 * The Markdown of the comments agent-bridge writes on an issue or a pull request, for every surface
 * whose comments are Markdown (docs/architecture.md §6): the start comment (edited at every state),
 * one comment per BLOCKED and end state, failures and notices. Titles, names, states, status messages
 * and reasons are foreign text, made inert (markdown.ts).
 */
import type { OutboxMessage, RunSnapshot } from '../core/ports/messages.js';
import { renderText } from '../core/outbox/render-text.js';
import { inertMarkdown, inertMessage, inertRun, markdownCode, markdownLink } from './markdown.js';

const BRAND = '**agent-bridge**';

/** The start comment before the run exists. */
export function receivedComment(title: string, requester: string | undefined): string {
  return `${BRAND} · ${inertMarkdown(title)}\n\nReceived${requester ? ` from ${inertMarkdown(requester)}` : ''} — starting a run…`;
}

/** The start comment at a run's current state. */
export function statusComment(run: RunSnapshot): string {
  const safe = inertRun(run);
  const lines = [
    `${BRAND} · ${safe.title}`,
    '',
    `State: **${safe.state}**${safe.statusText ? ` — ${safe.statusText}` : ''}`,
    `Run: ${markdownCode(run.runId)}`,
  ];
  if (run.options) lines.push(`Options: ${markdownCode(run.options)}`);
  const session = markdownLink('Open session', run.sessionLink);
  if (session) lines.push(session);
  for (const url of safe.pullRequests) lines.push(`Pull request: ${url}`);
  return lines.join('\n');
}

/** The start comment once a stop was asked for (the CANCELLED comment follows). */
export function stoppingComment(run: RunSnapshot, requestedBy: string | undefined): string {
  const safe = inertRun(run);
  const by = requestedBy ? ` — requested by ${inertMarkdown(requestedBy)}` : '';
  const lines = [`${BRAND} · ${safe.title}`, '', `State: **stopping**${by} (was ${safe.state})`, `Run: ${markdownCode(run.runId)}`];
  const session = markdownLink('Open session', run.sessionLink);
  if (session) lines.push(session);
  return lines.join('\n');
}

/** The start comment when the run could not be started. */
export function startFailedComment(title: string, reason: string): string {
  return `${BRAND} · ${inertMarkdown(title)}\n\nState: **not started** — ${inertMarkdown(reason)}`;
}

/**
 * A new comment: BLOCKED and end states, failures, notices. The words are the core's (render-text),
 * so every surface and the log say the same; only "reply in this thread" becomes how a comment answers.
 */
export function messageComment(message: OutboxMessage, handle: string): string {
  const text = renderText(inertMessage(message));
  const ours = 'Reply in this thread to answer.';
  if (message.kind === 'announce' && message.run.state === 'BLOCKED' && text.includes(ours)) {
    // The last one is ours: a title or status message may hold the same words.
    const at = text.lastIndexOf(ours);
    return `${text.slice(0, at)}Answer with a comment starting with ${handle}.${text.slice(at + ours.length)}`;
  }
  return text;
}
