/**
 * Foreign text in the Markdown of the surfaces that speak it (Linear's and GitHub's comments, Linear's
 * agent activities). Comments and agent activities are Markdown, and much of what they show was not
 * written by us: an agent's status message, a person's name, an issue
 * title, URLs from the run API. Raw, `![x](https://…)` in a status message becomes a live image (a
 * tracking pixel in every reader's browser) and `[Open session](https://evil)` a forged link. Every
 * foreign string goes through one of these functions; only the links we compose stay links.
 */
import { partsOf, plainLink } from '../core/outbox/notice-parts.js';
import type { MessageLink, NoticePart, OutboxMessage, RunSnapshot } from '../core/ports/messages.js';

/**
 * Characters that start Markdown syntax anywhere in a line: emphasis, links, images, code, HTML,
 * tables, strikethrough, headings, quotes, entities. `\` first of all, or it would undo the others.
 */
const INLINE = /[\\`*_[\]()!#<>|~&]/g;
/** Line starts that make blocks: lists (`-`, `+`, `1.`, `1)`) and setext headings or rules (`=`, `-`). */
const BLOCK_START = /^( {0,3})(?:([-+=])|(\d{1,9})([.)]))/gm;

/**
 * The text as plain words in Markdown: every syntax character backslash-escaped (CommonMark shows
 * an escaped character as itself), block syntax at line starts defused, and URL schemes and `www.`
 * broken so that linkifiers do not turn foreign URLs into links either.
 */
export function inertMarkdown(text: string): string {
  return text
    .replace(INLINE, (character) => `\\${character}`)
    .replace(BLOCK_START, (_start, indent: string, mark: string | undefined, digits: string | undefined, close: string | undefined) =>
      mark ? `${indent}\\${mark}` : `${indent}${digits}${close === '.' ? '\\.' : close}`,
    )
    .replace(/\b([a-z][a-z0-9+.-]{1,31}):(?=\/\/)/gi, '$1\\:')
    .replace(/\bwww\./gi, 'www\\.');
}

/**
 * Text we composed around foreign words (a notice such as ``write `@agent new …` to start one`` or
 * "requested by <name>"): single-backtick code spans stay code, everything else is made inert.
 * Whatever the foreign words do with backticks, each part ends up either escaped or inside a
 * code span, and neither can hold a link or an image.
 */
export function inertKeepingCode(text: string): string {
  let out = '';
  let last = 0;
  // A span not touching other backticks, so CommonMark pairs exactly these two.
  for (const span of text.matchAll(/(?<!`)`[^`\r\n\u2028\u2029]+`(?!`)/g)) {
    out += inertMarkdown(text.slice(last, span.index)) + span[0];
    last = span.index + span[0].length;
  }
  return out + inertMarkdown(text.slice(last));
}

/** Foreign text as inline code: a fence longer than any backtick run inside, on one line. */
export function markdownCode(text: string): string {
  const flat = text.replace(/[\r\n\u2028\u2029]+/g, ' ');
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/**
 * An http(s) URL made only of characters that can neither leave `<…>` nor look like Markdown to a
 * reader less strict than CommonMark (no spaces, `<>`, `\\`, brackets, parentheses, `!`, `*`, quotes).
 */
function linkable(url: string | undefined): url is string {
  return url !== undefined && url.length <= 2_000 && /^https?:\/\/[A-Za-z0-9\-._~:/?#@$&+,;=%]+$/i.test(url);
}

/** A URL from the run API as an autolink (`<url>`, shows the address itself), or inert text if it is not a plain http(s) URL. */
export function markdownUrl(url: string): string {
  return linkable(url) ? `<${url}>` : inertMarkdown(url);
}

/**
 * Our label as a link's text: on one line, with what would start syntax inside link text escaped
 * (brackets, emphasis, code, HTML, entities) and URL schemes broken, so the label is words whatever
 * it holds (a file path, a repository name). `#` and parentheses mean nothing there and stay as they are.
 */
function markdownLabel(label: string): string {
  return label
    .replace(/[\r\n\u2028\u2029]+/g, ' ')
    .replace(/[\\`*_[\]<>!&~|]/g, (character) => `\\${character}`)
    .replace(/\b([a-z][a-z0-9+.-]{1,31}):(?=\/\/)/gi, '$1\\:')
    .replace(/\bwww\./gi, 'www\\.');
}

/** `[label](<url>)` with our own label (escaped), or undefined when the URL is not a plain http(s) URL. */
export function markdownLink(label: string, url: string | undefined): string | undefined {
  return linkable(url) ? `[${markdownLabel(label)}](<${url}>)` : undefined;
}

/**
 * A notice's words and links as Markdown: the words inert (our code spans kept), each link
 * `[label](<url>)` (`<url>` without a label) — or, when its URL is not a plain http(s) URL, its label
 * and URL as inert words.
 */
export function markdownParts(parts: readonly NoticePart[]): string {
  return parts.map((part) => (typeof part === 'string' ? inertKeepingCode(part) : linkMarkdown(part))).join('');
}

function linkMarkdown(link: MessageLink): string {
  if (!link.label) return markdownUrl(link.url);
  return markdownLink(link.label, link.url) ?? inertMarkdown(plainLink(link));
}

/** A run with its words made inert and its URLs turned into autolinks (the run id is left for `markdownCode`). */
export function inertRun(run: RunSnapshot): RunSnapshot {
  return {
    ...run,
    title: inertMarkdown(run.title),
    state: inertMarkdown(run.state),
    ...(run.statusText !== undefined && { statusText: inertMarkdown(run.statusText) }),
    ...(run.sessionLink !== undefined && { sessionLink: markdownUrl(run.sessionLink) }),
    pullRequests: run.pullRequests.map(markdownUrl),
  };
}

/** Fields of an outbox message that hold foreign words, whichever kind it is (`text`: a notice we composed around them). */
const WORDS = ['title', 'requester', 'reason', 'text', 'cancelledBy', 'requestedBy', 'runId'] as const;

/**
 * The message with every foreign string made inert, for the core's plain rendering (`renderText`),
 * whose words are then safe to post as Markdown. Works by field name, so kinds added later are
 * covered as long as they use these names.
 */
export function inertMessage(message: OutboxMessage): OutboxMessage {
  // A notice's words and links: words inert, links ours (a row without links renders its text as before).
  if (message.kind === 'notice') return { ...message, text: markdownParts(partsOf(message)) };
  const copy: Record<string, unknown> = { ...message };
  for (const field of WORDS) {
    const value = copy[field];
    if (typeof value === 'string') copy[field] = field === 'text' ? inertKeepingCode(value) : inertMarkdown(value);
  }
  const run = copy['run'] as RunSnapshot | undefined;
  if (run) copy['run'] = { ...inertRun(run), runId: inertMarkdown(run.runId) };
  return copy as OutboxMessage;
}
