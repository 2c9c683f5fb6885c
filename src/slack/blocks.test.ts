import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { noticeOf, partsOf } from '../core/outbox/notice-parts.js';
import type { RunSnapshot } from '../core/ports/messages.js';
import {
  ANSWER_ACTION_ID,
  CANCEL_ACTION_ID,
  announceBlocks,
  escapeKeepingMentions,
  escapeMrkdwn,
  failedBlocks,
  fallbackText,
  limitText,
  noticeBlocks,
  noticeMrkdwn,
  safeUrl,
  statusBlocks,
  type StatusView,
} from './blocks.js';

const KEY = 'slack:C0CHAN:1700000000.000100';
const run = (over: Partial<RunSnapshot> = {}): RunSnapshot => ({ runId: 'run_1', title: 'Fix the build', state: 'INPROGRESS', pullRequests: [], ...over });
const view = (over: Partial<StatusView> = {}): StatusView => ({ title: 'Fix the build', stage: { kind: 'received' }, threadKey: KEY, ...over });

/** Every mrkdwn / plain text of the blocks, joined. */
const texts = (blocks: KnownBlock[]): string => JSON.stringify(blocks);
const buttons = (blocks: KnownBlock[]): Array<Record<string, unknown>> =>
  blocks.flatMap((b) => (b.type === 'actions' ? (b.elements as unknown as Array<Record<string, unknown>>) : []));

describe('escaping', () => {
  it('escapes &, < and > so mentions and links stay text', () => {
    expect(escapeMrkdwn('a & <@U999> <!channel> <https://evil|click>')).toBe('a &amp; &lt;@U999&gt; &lt;!channel&gt; &lt;https://evil|click&gt;');
  });

  it('keeps exact user mentions only when asked', () => {
    expect(escapeKeepingMentions('by <@U123> not <!here> or <@U1|x>')).toBe('by <@U123> not &lt;!here&gt; or &lt;@U1|x&gt;');
  });

  it('cuts long text without leaving half an entity', () => {
    const cut = limitText(`${'a'.repeat(2997)}&amp;b`, 3000);
    expect(cut).toBe(`${'a'.repeat(2997)}…`);
    expect(limitText('short')).toBe('short');
  });

  it('accepts only http(s) URLs for links and buttons', () => {
    expect(safeUrl('https://app.example.com/s/1?a=1&b=2')).toBe('https://app.example.com/s/1?a=1&b=2');
    expect(safeUrl('javascript:alert(1)')).toBeUndefined();
    expect(safeUrl('https://x/a b')).toBeUndefined();
    expect(safeUrl(undefined)).toBeUndefined();
  });
});

describe('statusBlocks', () => {
  it('shows a received request with a Cancel button whose value is the thread key', () => {
    const blocks = statusBlocks(view());
    expect(blocks.map((b) => b.block_id)).toEqual(['status_title', 'status_state', 'status_actions']);
    expect(texts(blocks)).toContain('Received');
    expect(buttons(blocks)).toEqual([expect.objectContaining({ action_id: CANCEL_ACTION_ID, value: KEY, style: 'danger' })]);
    expect(CANCEL_ACTION_ID).toBe('cancel_run');
  });

  it('shows a stop on its way: who asked (a kept mention, nothing else), and no Cancel button', () => {
    const blocks = statusBlocks(
      view({ stage: { kind: 'stopping', requestedBy: '<@U7> <!channel>' }, runId: 'run_42', sessionLink: 'https://app.example.com/s/42' }),
    );
    expect(texts(blocks)).toContain('Stopping (requested by <@U7> &lt;!channel&gt;)…');
    expect(buttons(blocks).map((button) => button['action_id'])).toEqual(['open_session']);
  });

  it('shows state, run id, status text and the session button while running', () => {
    const blocks = statusBlocks(
      view({ stage: { kind: 'run', state: 'INPROGRESS' }, runId: 'run_42', statusText: 'Running tests', sessionLink: 'https://app.example.com/s/42' }),
    );
    const all = texts(blocks);
    expect(all).toContain('In progress');
    expect(all).toContain('`run_42`');
    expect(all).toContain('Running tests');
    expect(buttons(blocks).map((b) => b['action_id'])).toEqual(['open_session', 'cancel_run']);
    expect(buttons(blocks)[0]).toMatchObject({ url: 'https://app.example.com/s/42' });
  });

  it.each(['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'])('drops Cancel at %s', (state) => {
    const blocks = statusBlocks(view({ stage: { kind: 'run', state }, runId: 'run_1' }));
    expect(buttons(blocks).some((b) => b['action_id'] === CANCEL_ACTION_ID)).toBe(false);
    expect(blocks.some((b) => b.type === 'actions')).toBe(false);
  });

  it('shows an unknown state as it is and keeps Cancel (not a known end state)', () => {
    const blocks = statusBlocks(view({ stage: { kind: 'run', state: 'PAUSED_<X>' }, runId: 'run_1' }));
    expect(texts(blocks)).toContain('PAUSED_&lt;X&gt;');
    expect(buttons(blocks).map((b) => b['action_id'])).toEqual(['cancel_run']);
  });

  it('shows a start failure without Cancel', () => {
    const blocks = statusBlocks(view({ stage: { kind: 'start_failed' }, statusText: 'the run API refused the key' }));
    expect(texts(blocks)).toContain('Failed to start');
    expect(buttons(blocks)).toEqual([]);
  });

  it('escapes a title that tries to mention or link', () => {
    const blocks = statusBlocks(view({ title: 'hi <@U999> <https://evil|click> & <!channel>' }));
    const title = blocks[0] as { text: { text: string } };
    expect(title.text.text).toBe('*hi &lt;@U999&gt; &lt;https://evil|click&gt; &amp; &lt;!channel&gt;*');
    expect(texts(blocks)).not.toContain('<@U999>');
  });

  it('limits section text to 3000 characters and ignores a session link that is not http(s)', () => {
    const blocks = statusBlocks(view({ statusText: 'x'.repeat(5000), sessionLink: 'ftp://nope' }));
    for (const block of blocks) if (block.type === 'section' && block.text) expect(block.text.text.length).toBeLessThanOrEqual(3000);
    expect(buttons(blocks).map((b) => b['action_id'])).toEqual(['cancel_run']);
  });
});

describe('announceBlocks', () => {
  it('SUCCEEDED: Done with the session and every pull request', () => {
    const all = texts(
      announceBlocks(run({ state: 'SUCCEEDED', sessionLink: 'https://app/s/1', pullRequests: ['https://gh/o/r/pull/1', 'https://gh/o/r/pull/2'] })),
    );
    expect(all).toContain('Done');
    expect(all).toContain('<https://app/s/1|Open session>');
    expect(all).toContain('<https://gh/o/r/pull/1|https://gh/o/r/pull/1>');
    expect(all).toContain('<https://gh/o/r/pull/2|https://gh/o/r/pull/2>');
  });

  it('FAILED / ERROR: status text and what to try', () => {
    const failed = texts(announceBlocks(run({ state: 'FAILED', statusText: 'Tests <failed>', sessionLink: 'https://app/s/1' })));
    expect(failed).toContain('Tests &lt;failed&gt;');
    expect(failed).toContain('reply in this thread to continue the run, or open the session');
    const error = texts(announceBlocks(run({ state: 'ERROR' })));
    expect(error).toContain('stopped with an error');
    expect(error).toContain('reply in this thread to continue the run.');
  });

  it('CANCELLED: says who, keeping a mention', () => {
    expect(texts(announceBlocks(run({ state: 'CANCELLED' }), '<@U123>'))).toContain('Cancelled by <@U123>');
    expect(texts(announceBlocks(run({ state: 'CANCELLED' }), '<b>'))).toContain('Cancelled by &lt;b&gt;');
    expect(texts(announceBlocks(run({ state: 'CANCELLED' })))).toContain('Cancelled: ');
  });

  it('BLOCKED: quotes the question and asks for a reply', () => {
    const all = texts(announceBlocks(run({ state: 'BLOCKED', statusText: 'Which branch?\nmain or dev' })));
    expect(all).toContain('needs your input');
    expect(all).toContain('>Which branch?\\n>main or dev');
    expect(all).toContain('Reply in this thread to answer.');
  });

  it('BLOCKED carries the Answer button naming the run; no other announcement does', () => {
    const answerButtons = (blocks: KnownBlock[]) =>
      blocks
        .flatMap((block) => (block.type === 'actions' ? block.elements : []))
        .filter((element) => 'action_id' in element && element.action_id === ANSWER_ACTION_ID);
    expect(answerButtons(announceBlocks(run({ state: 'BLOCKED', runId: 'run_42' })))).toEqual([expect.objectContaining({ type: 'button', value: 'run_42' })]);
    for (const state of ['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED', 'ARCHIVED']) expect(answerButtons(announceBlocks(run({ state })))).toEqual([]);
  });

  it('shows an unknown announced state as it is', () => {
    expect(texts(announceBlocks(run({ state: 'ARCHIVED', statusText: 'gone' })))).toContain('ARCHIVED — gone');
  });

  it('keeps many pull requests within one section', () => {
    const pullRequests = Array.from({ length: 200 }, (_, i) => `https://github.com/o/r/pull/${i}`);
    const links = announceBlocks(run({ state: 'SUCCEEDED', pullRequests })).find((b) => b.block_id === 'announce_links') as { text: { text: string } };
    expect(links.text.text.length).toBeLessThanOrEqual(3000);
    expect(links.text.text).toMatch(/…and \d+ more pull requests$/);
  });
});

describe('other messages', () => {
  it('failed and notice blocks escape the text, notices keep user mentions', () => {
    expect(texts(failedBlocks('Fix <it>', 'the run API said <no>'))).toContain('Could not start *Fix &lt;it&gt;*: the run API said &lt;no&gt;');
    expect(texts(noticeBlocks(['Stopping the run (requested by <@U7>) <!channel>']))).toContain('(requested by <@U7>) &lt;!channel&gt;');
  });

  it('a notice’s links are mrkdwn links; a URL in its words stays words, and an unsafe link is shown as words', () => {
    const notice = noticeOf([
      'GitHub user Codertocat sent the run ',
      { url: 'https://github.com/Codertocat/Hello-World/pull/2#discussion_r1&x', label: 'a comment on <src/a.ts>' },
      ' from GitHub.',
    ]);
    const mrkdwn = noticeMrkdwn(partsOf(notice));
    expect(mrkdwn).toBe(
      'GitHub user Codertocat sent the run <https://github.com/Codertocat/Hello-World/pull/2#discussion_r1&amp;x|a comment on &lt;src/a.ts&gt;> from GitHub.',
    );
    expect(texts(noticeBlocks(partsOf(notice)))).toContain(JSON.stringify(mrkdwn).slice(1, -1));
    // The notification text says the same, links included.
    expect(fallbackText(notice)).toBe(mrkdwn);
    // Words someone wrote hold no link: `<…|…>` is escaped (Slack shows a bare URL as itself).
    expect(noticeMrkdwn(['see <https://evil.example|your session>'])).toBe('see &lt;https://evil.example|your session&gt;');
    expect(noticeMrkdwn([{ url: 'javascript:alert(1)', label: 'click' }, ' and ', { url: 'https://a.example/x|y' }])).toBe(
      'click (javascript:alert(1)) and https://a.example/x|y',
    );
    // A row stored before notices had links renders its text as before.
    expect(fallbackText({ kind: 'notice', text: 'merged: https://github.com/acme/web/pull/2' })).toBe('merged: https://github.com/acme/web/pull/2');
  });

  it('fallback text is the plain rendering, escaped', () => {
    expect(fallbackText({ kind: 'received', title: '<@U999> hi' })).toBe('Received: &lt;@U999&gt; hi — starting a run…');
    expect(fallbackText({ kind: 'announce', run: run({ state: 'CANCELLED' }), receivedKey: 'r', cancelledBy: '<@U1>' })).toBe('Cancelled by <@U1>');
    expect(fallbackText({ kind: 'status', run: run({ title: 'a & b' }), receivedKey: 'r' })).toBe('a &amp; b: INPROGRESS');
  });
});

describe('the status message of a run asked for in Linear', () => {
  const about = (blocks: KnownBlock[]) => JSON.stringify(blocks.find((b) => b.block_id === 'status_about') ?? null);

  it.each([
    [
      'the issue as a link and who asked',
      { ticket: { ref: 'ENG-7', url: 'https://linear.app/acme/issue/ENG-7' }, requester: 'Ada' },
      '<https://linear.app/acme/issue/ENG-7|ENG-7>',
      'asked by Ada',
    ],
    ['an unsafe URL stays text', { ticket: { ref: 'ENG-7', url: 'javascript:alert(1)', from: 'Linear' } }, 'From Linear ENG-7', undefined],
    [
      'a Jira issue is from Jira',
      { ticket: { ref: 'OPS-3', url: 'https://acme.atlassian.net/browse/OPS-3', from: 'Jira' } },
      'From Jira <https://acme.atlassian.net/browse/OPS-3|OPS-3>',
      undefined,
    ],
    ['a GitHub issue is from GitHub', { ticket: { ref: 'Acme/Web#9', from: 'GitHub' } }, 'From GitHub Acme/Web#9', undefined],
    ['a row that names no tracker claims none', { ticket: { ref: 'ENG-7' } }, '"From ENG-7', undefined],
    ['hostile names are escaped', { ticket: { ref: '<!channel>' }, requester: '<@U999> & co' }, '&lt;!channel&gt;', 'asked by &lt;@U999&gt; &amp; co'],
  ])('%s', (_name, value, shows, asked) => {
    const line = about(statusBlocks(view({ about: value })));
    expect(line).toContain(shows);
    if (asked) expect(line).toContain(asked);
    else expect(line).not.toContain('asked by');
    expect(line).not.toContain('javascript:');
  });

  it('says nothing about a place when the run was asked for in Slack', () => {
    expect(about(statusBlocks(view()))).toBe('null');
  });
});
