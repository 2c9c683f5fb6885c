/**
 * Atlassian Document Format (ADF), the body of Jira comments and descriptions in REST v3, where text
 * is text. What we write is built from text nodes only — people's and the agent's
 * words can never become a link, a mention or markup, whatever characters they hold — each bounded in
 * length; the only links are the link marks we build here from URLs we hold (a session, a pull
 * request), never parsed out of text. Reading goes the other way: a description or comment may be ADF
 * (REST v3) or a plain string (webhook payloads carry the v2 shape), and both become text.
 */

/** An inline node: text, optionally bold or a link we built. */
export interface AdfText {
  type: 'text';
  text: string;
  marks?: Array<{ type: 'strong' } | { type: 'code' } | { type: 'link'; attrs: { href: string } }>;
}
export interface AdfHardBreak {
  type: 'hardBreak';
}
export type AdfInline = AdfText | AdfHardBreak;
export interface AdfParagraph {
  type: 'paragraph';
  content: AdfInline[];
}
/** A document as REST v3 takes it for a comment body. */
export interface AdfDoc {
  type: 'doc';
  version: 1;
  content: AdfParagraph[];
}

/** At most this many characters of one piece of foreign text go into a comment (titles, status messages, reasons). */
export const TEXT_LIMIT = 2_000;
/** Jira refuses a comment over 32,767 characters; ours stay well below. */
export const COMMENT_LIMIT = 30_000;

/** The first `limit` code points of `value` (never cutting a surrogate pair), with `…` when cut. */
export function bounded(value: string, limit = TEXT_LIMIT): string {
  const characters = [...value];
  return characters.length <= limit ? value : `${characters.slice(0, limit - 1).join('')}…`;
}

/** Characters that draw nothing or reorder text: dropped, so hostile text cannot hide or disguise words. */
const INVISIBLE = /[\p{Cc}\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/gu;

/**
 * Foreign text as inline nodes: bounded, invisible and control characters removed, each line break a
 * `hardBreak`. Empty text gives no node (Jira refuses an empty text node).
 */
export function text(value: string, limit = TEXT_LIMIT): AdfInline[] {
  const lines = bounded(value, limit)
    .split(/\r\n|[\r\n\u0085\u2028\u2029]/)
    .map((line) => line.replace(INVISIBLE, ''));
  const nodes: AdfInline[] = [];
  lines.forEach((line, index) => {
    if (index > 0) nodes.push({ type: 'hardBreak' });
    if (line !== '') nodes.push({ type: 'text', text: line });
  });
  return nodes;
}

/** Foreign text on one line (a title, a name): line breaks become spaces. */
export function oneLineText(value: string, limit = TEXT_LIMIT): AdfInline[] {
  return text(value.replace(/[\r\n\u0085\u2028\u2029]+/g, ' '), limit);
}

/** Our own words in bold. */
export function strong(value: string): AdfInline[] {
  return value === '' ? [] : [{ type: 'text', text: value, marks: [{ type: 'strong' }] }];
}

/** A run id or options as code. */
export function code(value: string): AdfInline[] {
  const kept = bounded(value.replace(INVISIBLE, ''), 200);
  return kept === '' ? [] : [{ type: 'text', text: kept, marks: [{ type: 'code' }] }];
}

/**
 * A link mark we build on our own label; nothing when `href` is not an absolute http(s) URL (a
 * `javascript:` or relative URL never becomes a link). The label is shown; the URL is the mark's.
 */
export function link(label: string, href: string | undefined): AdfInline[] {
  if (!href) return [];
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return [];
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return [];
  return [{ type: 'text', text: bounded(label, 200), marks: [{ type: 'link', attrs: { href: url.href } }] }];
}

export function paragraph(...parts: AdfInline[][]): AdfParagraph {
  return { type: 'paragraph', content: parts.flat() };
}

/** A document of these paragraphs, empty ones left out; over `COMMENT_LIMIT` characters, the last ones are cut. */
export function doc(...paragraphs: Array<AdfParagraph | undefined>): AdfDoc {
  let budget = COMMENT_LIMIT;
  const content: AdfParagraph[] = [];
  for (const block of paragraphs) {
    if (!block || block.content.length === 0) continue;
    const kept: AdfInline[] = [];
    for (const node of block.content) {
      if (node.type === 'hardBreak') {
        kept.push(node);
        continue;
      }
      if (budget <= 0) break;
      const piece = bounded(node.text, Math.max(budget, 1));
      budget -= piece.length;
      kept.push({ ...node, text: piece });
    }
    if (kept.some((node) => node.type === 'text')) content.push({ type: 'paragraph', content: kept });
  }
  return { type: 'doc', version: 1, content };
}

/** A document of plain text: one paragraph per blank-line-separated block, lines kept. */
export function textDoc(value: string, limit = COMMENT_LIMIT): AdfDoc {
  return doc(...value.split(/\n{2,}/).map((block) => paragraph(text(block, limit))));
}

const BLOCKS = new Set(['paragraph', 'heading', 'blockquote', 'codeBlock', 'listItem', 'panel', 'tableRow', 'rule', 'mediaSingle']);

/**
 * The text of a description or comment: a plain string as it is (the webhook's v2 shape), an ADF
 * document as its text nodes (mentions by their shown name, a line per block); anything else is empty.
 * Depth and size are bounded: a hostile document cannot exhaust the stack.
 */
export function adfToText(value: unknown, limit = 100_000): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return '';
  const out: string[] = [];
  let length = 0;
  const walk = (node: unknown, depth: number): void => {
    if (length > limit || depth > 50 || typeof node !== 'object' || node === null) return;
    const { type, text: nodeText, content, attrs } = node as { type?: unknown; text?: unknown; content?: unknown; attrs?: { text?: unknown } };
    let piece = '';
    if (type === 'text' && typeof nodeText === 'string') piece = nodeText;
    else if (type === 'hardBreak') piece = '\n';
    else if ((type === 'mention' || type === 'emoji') && typeof attrs?.text === 'string') piece = attrs.text;
    else if (type === 'inlineCard' && typeof (attrs as { url?: unknown } | undefined)?.url === 'string') piece = String((attrs as { url: string }).url);
    if (piece) {
      out.push(piece);
      length += piece.length;
    }
    if (Array.isArray(content)) for (const child of content) walk(child, depth + 1);
    if (typeof type === 'string' && BLOCKS.has(type)) out.push('\n');
  };
  walk(value, 0);
  return out
    .join('')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
    .slice(0, limit);
}
