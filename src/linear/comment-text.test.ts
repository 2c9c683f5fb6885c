import { describe, expect, it } from 'vitest';
import { noticeOf } from '../core/outbox/notice-parts.js';
import type { OutboxMessage, RunSnapshot } from '../core/ports/messages.js';
import type { Delivery } from '../core/ports/notifier.js';
import { PERSON_IDS } from '../surface-list.js';
import { withPeopleInWords } from '../surface-kit/people-in-words.js';
import { messageComment, receivedComment, startFailedComment, statusComment, stoppingComment } from '../surface-kit/markdown-comments.js';
import type { LinearApi } from './linear-api.js';
import { OwnIds } from './own-ids.js';
import { LinearSessionNotifier } from './session-notifier.js';

/*
 * Text we did not write (an agent's status message, a person's name, an issue title, a
 * URL from the run API) must not become a live image (a tracking pixel) or a forged link in
 * Linear's Markdown. Our own links (the session, pull requests) stay links.
 */

const EVIL = '![x](https://evil/pixel) [click](https://evil) <img src=https://evil/p.png> www.evil.example';
const SESSION = 'https://agent.example/sessions/1';
const PR = 'https://github.com/acme/web/pull/7';
const REVIEW = 'https://github.com/Codertocat/Hello-World/pull/2#pullrequestreview-1';
const OURS = [`[Open session](<${SESSION}>)`, `<${SESSION}>`, `<${PR}>`];

/** Link and image syntax a Markdown reader would act on (links, images, autolinks, bare URLs), escapes and code spans honoured. */
function activeLinks(markdown: string): string[] {
  const prose = withoutCode(markdown);
  const pattern = /(?<!\\)!?\[[^\]\n]*\]\([^)\n]*\)+|(?<!\\)<[a-z][a-z0-9+.-]*:[^\s<>]*>|(?<![\\<])\b(?:https?|ftp):\/\/[^\s<>]*|(?<!\\)\bwww\.\S*/gi;
  return [...prose.matchAll(pattern)].map((match) => match[0]);
}

/** The text with its code spans (where nothing is a link) blanked out. */
const withoutCode = (markdown: string) => markdown.replace(/(?<![`\\])(`+)(?!`)([^\n]*?[^`\n])\1(?!`)/g, (span) => ' '.repeat(span.length));

function expectInert(markdown: string): void {
  expect(activeLinks(markdown).filter((link) => !OURS.includes(link))).toEqual([]);
  // No image, and no `](` outside our own session link.
  expect(withoutCode(markdown)).not.toMatch(/(?<!\\)!(?<!\\)\[/);
  expect(withoutCode(markdown).match(/(?<!\\)\]\(/g)?.length ?? 0).toBe(markdown.split(OURS[0]!).length - 1);
}

const evilRun = (over: Partial<RunSnapshot> = {}): RunSnapshot => ({
  runId: 'run_1',
  title: `ENG-1: ${EVIL}`,
  state: 'INPROGRESS',
  statusText: `${EVIL}\n# not a heading\n> not a quote`,
  sessionLink: SESSION,
  pullRequests: [PR, 'https://x/a)![p](https://evil/pixel'],
  ...over,
});

describe('comments on a Linear issue', () => {
  it.each<[string, string]>([
    ['the start comment', receivedComment(`ENG-1: ${EVIL}`, EVIL)],
    ['the start comment at a state', statusComment(evilRun())],
    ['the start comment of an unknown state', statusComment(evilRun({ state: EVIL }))],
    ['the start comment when the run could not start', startFailedComment(`ENG-1: ${EVIL}`, EVIL)],
    ...['SUCCEEDED', 'FAILED', 'ERROR', 'BLOCKED', 'CANCELLED', EVIL].map<[string, string]>((state) => [
      `the ${state.length > 12 ? 'unknown-state' : state} comment`,
      messageComment({ kind: 'announce', run: evilRun({ state }), receivedKey: 'r', cancelledBy: EVIL }, '@agent'),
    ]),
    ['a failure', messageComment({ kind: 'failed', title: EVIL, reason: EVIL, receivedKey: 'r' }, '@agent')],
    ['a notice', messageComment({ kind: 'notice', text: `Stopping the run (requested by ${EVIL}).` }, '@agent')],
    ['a delivered follow-up', messageComment({ kind: 'followup_accepted', runId: EVIL }, '@agent')],
    ['the start comment when a stop was asked for', stoppingComment(evilRun({ state: EVIL }), EVIL)],
    [
      'a notice of ours around a name with backticks',
      messageComment({ kind: 'notice', text: `Write \`@agent new\` (requested by x\` ${EVIL} \`y ${EVIL}).` }, '@agent'),
    ],
  ])('%s has no image and no link from foreign text', (_what, markdown) => {
    expectInert(markdown);
    expect(markdown).toContain('\\!\\[x\\]\\(https\\://evil/pixel\\)');
  });

  it('our own links stay links; the run id is code', () => {
    const comment = statusComment(evilRun());
    expect(comment).toContain(`[Open session](<${SESSION}>)`);
    expect(comment).toContain(`Pull request: <${PR}>`);
    expect(comment).toContain('Run: `run_1`');
    const done = messageComment({ kind: 'announce', run: evilRun({ state: 'SUCCEEDED' }), receivedKey: 'r' }, '@agent');
    expect(done).toContain(`Session: <${SESSION}>`);
    expect(done).toContain(`Pull request: <${PR}>`);
  });

  it('a session link that is not a plain http(s) URL is not linked', () => {
    const comment = statusComment(evilRun({ sessionLink: 'https://x/a>)![p](https://evil/pixel)' }));
    expectInert(comment);
    expect(comment).not.toContain('Open session');
  });

  it('a notice’s links are links; a URL in its words is not', () => {
    const notice = noticeOf([`GitHub user Codertocat (${EVIL}) sent the run `, { url: REVIEW, label: 'a review' }, ` from GitHub: ${EVIL}.`]);
    const comment = messageComment(notice, '@agent');
    expect(comment).toContain(`sent the run [a review](<${REVIEW}>) from GitHub`);
    expect(activeLinks(comment)).toEqual([`[a review](<${REVIEW}>)`]);
    expect(comment).toContain('\\!\\[x\\]\\(https\\://evil/pixel\\)');
    // A row stored before notices had links: its text, inert as it was.
    const old = messageComment({ kind: 'notice', text: `merged: ${REVIEW}` }, '@agent');
    expect(old).toBe(`merged: ${REVIEW.replace('https:', 'https\\:').replace('#', '\\#')}`);
    expect(activeLinks(old)).toEqual([]);
  });

  it('plain words read as before', () => {
    expect(receivedComment('ENG-1: Fix the login test', 'Ada Lovelace')).toBe(
      '**agent-bridge** · ENG-1: Fix the login test\n\nReceived from Ada Lovelace — starting a run…',
    );
  });
});

describe('agent activities in a Linear agent session', () => {
  const bodies: string[] = [];
  const api = {
    createActivity: (input: { content: Record<string, unknown> }) => {
      bodies.push(String(input.content['body']));
      return Promise.resolve();
    },
    setSessionLink: () => Promise.resolve(),
  } as unknown as LinearApi;
  const notifier = new LinearSessionNotifier({ api, ids: new OwnIds('test-secret') });
  const deliver = (message: OutboxMessage) => {
    const delivery: Delivery = {
      key: `k-${bodies.length}`,
      destination: 'linear-session:session-1',
      message,
      attempt: 0,
      resultOf: () => Promise.resolve(undefined),
    };
    return notifier.deliver(delivery);
  };

  it.each<[string, OutboxMessage]>([
    ['received', { kind: 'received', title: `ENG-1: ${EVIL}` }],
    ['status', { kind: 'status', run: evilRun(), receivedKey: 'r' }],
    ['SUCCEEDED', { kind: 'announce', run: evilRun({ state: 'SUCCEEDED' }), receivedKey: 'r' }],
    ['BLOCKED', { kind: 'announce', run: evilRun({ state: 'BLOCKED' }), receivedKey: 'r' }],
    ['FAILED', { kind: 'announce', run: evilRun({ state: 'FAILED' }), receivedKey: 'r' }],
    ['CANCELLED', { kind: 'announce', run: evilRun({ state: 'CANCELLED' }), receivedKey: 'r', cancelledBy: EVIL }],
    ['failed', { kind: 'failed', title: EVIL, reason: EVIL, receivedKey: 'r' }],
    ['notice', { kind: 'notice', text: EVIL }],
    ['stopping', { kind: 'stopping', run: evilRun(), receivedKey: 'r', requestedBy: EVIL }],
  ])('%s has no image and no link from foreign text', async (_what, message) => {
    await deliver(message);
    const body = bodies.at(-1)!;
    expectInert(body);
    expect(body).toContain('\\!\\[x\\]\\(https\\://evil/pixel\\)');
  });

  it('a notice’s links are links in the activity; its words are not', async () => {
    await deliver(noticeOf([`${EVIL} sent the run `, { url: REVIEW, label: 'a review' }, '.']));
    const body = bodies.at(-1)!;
    expect(activeLinks(body)).toEqual([`[a review](<${REVIEW}>)`]);
    expect(body).toContain('\\!\\[x\\]\\(https\\://evil/pixel\\)');
  });
});

describe('chat people in a notice on an issue (who rejected a request)', () => {
  it('names them in words, not in a chat’s markup', () => {
    const message: OutboxMessage = { kind: 'notice', text: '<@U0ALICE1>: your request was rejected by <@U0LEAD01>.' };
    expect(withPeopleInWords(message, PERSON_IDS)).toEqual({ kind: 'notice', text: 'Slack user U0ALICE1: your request was rejected by Slack user U0LEAD01.' });
  });

  it('in the words of a notice with links too, never in a link', () => {
    const message = noticeOf(['<@U0ALICE1> sent the run ', { url: REVIEW, label: 'a review' }, '.']);
    expect(messageComment(withPeopleInWords(message, PERSON_IDS), '@agent')).toBe(`Slack user U0ALICE1 sent the run [a review](<${REVIEW}>).`);
  });
});
