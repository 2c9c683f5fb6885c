import { describe, expect, it } from 'vitest';
import { adfToText, bounded, doc, link, oneLineText, paragraph, text, textDoc, COMMENT_LIMIT, type AdfDoc } from './adf.js';
import { noticeOf } from '../core/outbox/notice-parts.js';
import { messageDoc, receivedDoc, statusDoc } from './comment-text.js';

/* Text is text: what people and the agent wrote goes into ADF as text nodes only. */

/** Every node of a document, depth first. */
function nodes(value: unknown): Array<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null) return [];
  const node = value as Record<string, unknown>;
  const children = Array.isArray(node['content']) ? (node['content'] as unknown[]) : [];
  return [node, ...children.flatMap(nodes)];
}
const hrefs = (adf: AdfDoc) =>
  nodes(adf).flatMap((node) =>
    ((node['marks'] as Array<{ type: string; attrs?: { href: string } }> | undefined) ?? [])
      .filter((mark) => mark.type === 'link')
      .map((mark) => mark.attrs?.href),
  );

const HOSTILE = [
  '[click here|https://evil.example/steal] and [~accountid:5b10ac8d82e05b22cc7d4ef5]',
  '<a href="https://evil.example">x</a> <script>alert(1)</script> {color:red}red{color} *bold* !image.png!',
  '@agent stop https://evil.example/raw-url [text](https://evil.example/md)',
  'zero\u200Bwidth \u202Eevil\u202C right-to-left \u0007bell',
];

describe('ADF we write', () => {
  it.each(HOSTILE)('hostile text stays text nodes, without a link or a mention: %s', (hostile) => {
    const adf = doc(paragraph(text(hostile)));
    const types = new Set(nodes(adf).map((node) => node['type']));
    expect([...types].sort()).toEqual(['doc', 'paragraph', 'text']);
    expect(hrefs(adf)).toEqual([]);
    expect(nodes(adf).every((node) => node['marks'] === undefined)).toBe(true);
  });

  it('drops invisible and reordering characters, keeps the words', () => {
    expect(adfToText(doc(paragraph(text(HOSTILE[3]!))))).toBe('zerowidth evil right-to-left bell');
  });

  it('line breaks are hardBreaks (or spaces on one line), never an empty text node', () => {
    expect(text('a\n\nb')).toEqual([{ type: 'text', text: 'a' }, { type: 'hardBreak' }, { type: 'hardBreak' }, { type: 'text', text: 'b' }]);
    expect(oneLineText('a\nb')).toEqual([{ type: 'text', text: 'a b' }]);
    expect(text('')).toEqual([]);
  });

  it('bounds each piece and the whole comment', () => {
    expect([...bounded('x'.repeat(5_000))]).toHaveLength(2_000);
    expect(text('y'.repeat(5_000))[0]).toMatchObject({ text: expect.stringMatching(/^y{1999}…$/) });
    const huge = textDoc('z'.repeat(100_000));
    expect(adfToText(huge).length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(bounded('😀'.repeat(3), 2)).toBe('😀…');
  });

  it('a link is a mark we build on our label, only for http(s)', () => {
    expect(link('Open session', 'https://agents.example/sessions/1')).toEqual([
      { type: 'text', text: 'Open session', marks: [{ type: 'link', attrs: { href: 'https://agents.example/sessions/1' } }] },
    ]);
    expect(link('x', 'javascript:alert(1)')).toEqual([]);
    expect(link('x', '/relative')).toEqual([]);
    expect(link('x', undefined)).toEqual([]);
  });
});

describe('the comments we write', () => {
  const run = {
    runId: 'run_1',
    title: `ENG-1: ${HOSTILE[0]!}`,
    state: 'SUCCEEDED',
    statusText: HOSTILE[1]!,
    sessionLink: 'https://agents.example/sessions/run_1',
    pullRequests: ['https://github.com/acme/web/pull/9'],
  };

  it('the start comment and its edits: a hostile title, requester and status stay words; the only links are the session and PR we hold', () => {
    for (const adf of [receivedDoc(run.title, HOSTILE[2]), statusDoc(run)]) {
      expect(hrefs(adf).every((href) => href === run.sessionLink || href === run.pullRequests[0])).toBe(true);
      expect(adfToText(adf)).toContain('[click here|https://evil.example/steal]');
    }
    expect(hrefs(statusDoc(run))).toEqual([run.sessionLink, run.pullRequests[0]]);
  });

  it('an end comment says the core’s words; a status message naming a URL does not become a link', () => {
    const adf = messageDoc({ kind: 'announce', run: { ...run, state: 'FAILED', statusText: 'see https://evil.example/x' }, receivedKey: 'r' }, '@agent');
    expect(adfToText(adf)).toContain('see https://evil.example/x');
    expect(hrefs(adf)).toEqual([run.sessionLink, run.pullRequests[0]]);
  });

  it('a notice’s link is a link mark on its label; a URL in its words is text, and a link that is not http(s) is text', () => {
    const url = 'https://github.com/Codertocat/Hello-World/pull/2';
    const adf = messageDoc(
      noticeOf([
        `${HOSTILE[2]!} — the pull request `,
        { url, label: 'Codertocat/Hello-World#2' },
        ' was merged.\n\nNext: ',
        { url: 'javascript:alert(1)', label: 'x' },
      ]),
      '@agent',
    );
    expect(hrefs(adf)).toEqual([url]);
    expect(adf.content[0]?.content.find((node) => node.type === 'text' && node.marks)).toEqual({
      type: 'text',
      text: 'Codertocat/Hello-World#2',
      marks: [{ type: 'link', attrs: { href: url } }],
    });
    expect(adf.content).toHaveLength(2);
    expect(adfToText(adf)).toBe(`${HOSTILE[2]!} — the pull request Codertocat/Hello-World#2 was merged.\nNext: x (javascript:alert(1))`);
    // A row stored before notices had links: its text, words only, paragraphs as before.
    const old = messageDoc({ kind: 'notice', text: `merged: ${url}\n\nbye` }, '@agent');
    expect(old).toEqual(textDoc(`merged: ${url}\n\nbye`));
    expect(hrefs(old)).toEqual([]);
  });

  it('BLOCKED says how to answer in Jira', () => {
    const adf = messageDoc({ kind: 'announce', run: { ...run, state: 'BLOCKED', statusText: 'Which browser?' }, receivedKey: 'r' }, '@agent');
    expect(adfToText(adf)).toContain('Which browser? Answer with a comment starting with @agent.');
  });
});

describe('ADF we read', () => {
  it.each<[string, unknown, string]>([
    ['a v2 plain string', 'plain *text*', 'plain *text*'],
    [
      'a v3 document with a mention and a break',
      {
        type: 'doc',
        version: 1,
        content: [
          {
            type: 'paragraph',
            content: [
              { type: 'mention', attrs: { id: 'a', text: '@Ada' } },
              { type: 'text', text: ' hi' },
              { type: 'hardBreak' },
              { type: 'text', text: 'there' },
            ],
          },
        ],
      },
      '@Ada hi\nthere',
    ],
    ['null', null, ''],
    ['a number', 7, ''],
  ])('%s', (_what, value, expected) => {
    expect(adfToText(value)).toBe(expected);
  });

  it('a document nested deeper than anyone writes is read to a bounded depth, without exhausting the stack', () => {
    let deep: Record<string, unknown> = { type: 'text', text: 'bottom' };
    for (let depth = 0; depth < 10_000; depth++) deep = { type: 'paragraph', content: [deep] };
    expect(adfToText(deep)).toBe('');
  });
});
