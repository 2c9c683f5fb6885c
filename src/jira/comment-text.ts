/**
 * The comments agent-bridge writes on a Jira issue, in ADF: the start comment (edited at
 * every state), one comment per BLOCKED and end state, failures and notices. Titles, names, states,
 * status messages and reasons are foreign text: text nodes only (adf.ts), never markup; the session
 * and pull request links are link marks built from the URLs the run API gave, and a notice's links
 * from the URLs its owner held.
 */
import { partsOf, plainLink } from '../core/outbox/notice-parts.js';
import { renderText } from '../core/outbox/render-text.js';
import type { NoticePart, OutboxMessage, RunSnapshot } from '../core/ports/messages.js';
import { COMMENT_LIMIT, code, doc, link, oneLineText, paragraph, strong, text, textDoc, type AdfDoc, type AdfInline, type AdfParagraph } from './adf.js';

const brand = (title: string) => paragraph(strong('agent-bridge'), text(' · '), oneLineText(title, 300));

/** The start comment before the run exists. */
export function receivedDoc(title: string, requester: string | undefined): AdfDoc {
  return doc(brand(title), paragraph(text('Received'), requester ? [...text(' from '), ...oneLineText(requester, 200)] : [], text(' — starting a run…')));
}

function links(run: RunSnapshot): Array<AdfParagraph | undefined> {
  return [
    run.sessionLink ? paragraph(link('Open session', run.sessionLink)) : undefined,
    ...run.pullRequests.map((url) => paragraph(text('Pull request: '), link(url, url))),
  ];
}

/** The start comment at a run's current state. */
export function statusDoc(run: RunSnapshot): AdfDoc {
  return doc(
    brand(run.title),
    paragraph(text('State: '), strong(run.state.slice(0, 40)), run.statusText ? [...text(' — '), ...text(run.statusText)] : []),
    paragraph(text('Run: '), code(run.runId)),
    run.options ? paragraph(text('Options: '), code(run.options)) : undefined,
    ...links(run),
  );
}

/** The start comment once a stop was asked for (the CANCELLED comment follows). */
export function stoppingDoc(run: RunSnapshot, requestedBy: string | undefined): AdfDoc {
  return doc(
    brand(run.title),
    paragraph(
      text('State: '),
      strong('stopping'),
      requestedBy ? [...text(' — requested by '), ...oneLineText(requestedBy, 200)] : [],
      text(` (was ${run.state.slice(0, 40)})`),
    ),
    paragraph(text('Run: '), code(run.runId)),
    run.sessionLink ? paragraph(link('Open session', run.sessionLink)) : undefined,
  );
}

/** The start comment when the run could not be started. */
export function startFailedDoc(title: string, reason: string): AdfDoc {
  return doc(brand(title), paragraph(text('State: '), strong('not started'), text(' — '), text(reason)));
}

const REPLY = 'Reply in this thread to answer.';

/**
 * A new comment: BLOCKED and end states, failures, notices. The words are the core's (render-text), so
 * every place says the same; the session and pull request lines it ends with become link marks built
 * from the run's own URLs, and "reply in this thread" becomes how Jira answers.
 */
export function messageDoc(message: OutboxMessage, handle: string): AdfDoc {
  if (message.kind === 'notice') return noticeDoc(partsOf(message));
  let words = renderText(message);
  const run = message.kind === 'announce' ? message.run : undefined;
  const trailing = run ? [...(run.sessionLink ? [`Session: ${run.sessionLink}`] : []), ...run.pullRequests.map((url) => `Pull request: ${url}`)] : [];
  // Only the lines render-text added at the end, which we can rebuild as links; text before them stays text.
  for (const line of [...trailing].reverse()) {
    if (words.endsWith(`\n${line}`)) words = words.slice(0, -line.length - 1);
  }
  if (run?.state === 'BLOCKED') {
    const at = words.lastIndexOf(REPLY);
    if (at !== -1) words = `${words.slice(0, at)}Answer with a comment starting with ${handle}.${words.slice(at + REPLY.length)}`;
  }
  const body = textDoc(words);
  return run ? doc(...body.content, ...links(run)) : body;
}

/**
 * A notice's words and links: the words as text nodes (a blank line starts a paragraph, as in a
 * notice of words alone), each link a link mark on its label — or, when its URL is not an http(s)
 * URL, its label and URL as text.
 */
function noticeDoc(parts: readonly NoticePart[]): AdfDoc {
  const paragraphs: AdfInline[][] = [[]];
  for (const part of parts) {
    const current = paragraphs[paragraphs.length - 1]!;
    if (typeof part !== 'string') {
      const linked = link(part.label || part.url, part.url);
      current.push(...(linked.length > 0 ? linked : text(plainLink(part), COMMENT_LIMIT)));
      continue;
    }
    part.split(/\n{2,}/).forEach((block, index) => {
      if (index > 0) paragraphs.push([]);
      paragraphs[paragraphs.length - 1]!.push(...text(block, COMMENT_LIMIT));
    });
  }
  return doc(...paragraphs.map((content) => paragraph(content)));
}
