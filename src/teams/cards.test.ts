import { describe, expect, it } from 'vitest';
import { cardNodes, textRuns } from '../../test/teams/card-reading.js';
import type { RunSnapshot } from '../core/ports/messages.js';
import {
  announceCard,
  APPROVE_VERB,
  approvalCard,
  CANCEL_VERB,
  linkable,
  noticeCard,
  REJECT_VERB,
  statusCard,
  type AdaptiveCard,
  type CardStage,
} from './cards.js';

const SESSION = 'https://agents.example.com/sessions/run_1';
const snapshot = (overrides: Partial<RunSnapshot> = {}): RunSnapshot => ({
  runId: 'run_1',
  title: 'fix the flaky login test',
  state: 'INPROGRESS',
  pullRequests: [],
  ...overrides,
});

const words = (card: AdaptiveCard) => textRuns(card.body);
const actions = (card: AdaptiveCard) => card.actions ?? [];
const stop = (card: AdaptiveCard) => actions(card).filter((action) => action['verb'] === CANCEL_VERB);
const opens = (card: AdaptiveCard) => actions(card).filter((action) => action['type'] === 'Action.OpenUrl');

describe('linkable', () => {
  it.each<[string | undefined, boolean]>([
    ['https://agents.example.com/s/1', true],
    ['HTTPS://agents.example.com/s/1', true],
    ['http://127.0.0.1:8080/s/1', true],
    ['http://localhost/s/1', true],
    ['http://agents.example.com/s/1', false],
    ['http://127.0.0.1.evil.example/s/1', false],
    ['http://localhost@evil.example/s/1', false],
    ['javascript:alert(1)', false],
    ['data:text/html,<b>x</b>', false],
    ['//evil.example/x', false],
    ['not a url', false],
    ['', false],
    [undefined, false],
  ])('%s → %s', (url, expected) => {
    expect(linkable(url)).toBe(expected);
  });
});

describe('statusCard', () => {
  it('received: the title, who asked, and Stop without a run id yet', () => {
    const card = statusCard('fix the flaky login test', { kind: 'received', requester: 'Ada Lovelace' });
    expect(words(card)).toBe('fix the flaky login testState: 👀 Received from Ada Lovelace — starting a run…');
    expect(actions(card)).toEqual([{ type: 'Action.Execute', title: 'Stop', verb: CANCEL_VERB, data: {} }]);
  });

  it.each(['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'BLOCKED', 'SOMETHING_NEW'])('a run %s can still stop: Stop with its run id', (state) => {
    const card = statusCard('t', { kind: 'run', run: snapshot({ state }) });
    expect(stop(card)).toEqual([{ type: 'Action.Execute', title: 'Stop', verb: CANCEL_VERB, data: { runId: 'run_1' } }]);
  });

  it.each(['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED'])('a run %s cannot: no Stop', (state) => {
    expect(stop(statusCard('t', { kind: 'run', run: snapshot({ state, sessionLink: SESSION }) }))).toEqual([]);
  });

  it.each<[string, CardStage, string]>([
    ['stopping', { kind: 'stopping', run: snapshot(), requestedBy: 'Grace Hopper' }, 'State: 🛑 Stopping (requested by Grace Hopper)…'],
    ['awaiting approval', { kind: 'awaiting_approval' }, 'State: ⏳ Waiting for approval'],
    ['rejected', { kind: 'not_approved', outcome: 'rejected' }, 'State: 🚫 Rejected'],
    ['expired', { kind: 'not_approved', outcome: 'expired' }, 'State: ⌛ Expired without approval'],
    [
      'failed to start',
      { kind: 'start_failed', title: 't', reason: 'the run API refused the request' },
      'State: ❌ Failed to startthe run API refused the request',
    ],
  ])('%s: says so, and has no Stop', (_what, stage, said) => {
    const card = statusCard('t', stage);
    expect(words(card)).toContain(said);
    expect(stop(card)).toEqual([]);
  });

  it('a run: its state in words, its run id, options and status text', () => {
    const card = statusCard('t', { kind: 'run', run: snapshot({ options: 'env=env_api', statusText: 'running the tests' }) });
    expect(words(card)).toBe('tState: 🛠️ In progressRun: run_1Options: env=env_apirunning the tests');
    expect(statusCard('t', { kind: 'run', run: snapshot({ state: 'SOMETHING_NEW' }) })).toSatisfy((next: AdaptiveCard) =>
      words(next).includes('SOMETHING_NEW'),
    );
  });

  it('where the run was asked for, when elsewhere, on every stage', () => {
    for (const stage of [{ kind: 'received' }, { kind: 'run', run: snapshot() }, { kind: 'awaiting_approval' }] as CardStage[]) {
      expect(words(statusCard('t', { ...stage, about: 'Asked for on Linear: ENG-7' }))).toContain('Asked for on Linear: ENG-7');
    }
  });

  it.each<[string, string | undefined, number]>([
    ['an https session link', SESSION, 1],
    ['no session link', undefined, 0],
    ['an http session link', 'http://agents.example.com/s/1', 0],
    ['a javascript: session link', 'javascript:alert(1)', 0],
  ])('Open session only for an https link: %s', (_what, sessionLink, count) => {
    for (const stage of [
      { kind: 'run', run: snapshot({ ...(sessionLink !== undefined && { sessionLink }) }) },
      { kind: 'stopping', run: snapshot({ ...(sessionLink !== undefined && { sessionLink }) }) },
    ] as CardStage[]) {
      const open = opens(statusCard('t', stage));
      expect(open).toHaveLength(count);
      if (count) expect(open[0]).toEqual({ type: 'Action.OpenUrl', title: 'Open session', url: SESSION });
    }
  });

  it('a text over 3,000 characters is cut with an ellipsis', () => {
    const card = statusCard('x'.repeat(5_000), { kind: 'awaiting_approval' });
    const title = cardNodes(card.body).find((node) => node['type'] === 'TextRun')?.['text'] as string;
    expect([...title]).toHaveLength(3_000);
    expect(title.endsWith('x…')).toBe(true);
  });
});

describe('announceCard', () => {
  it.each<[string, Partial<RunSnapshot>, string | undefined, string]>([
    ['SUCCEEDED', {}, undefined, '✅ Done: fix the flaky login test'],
    ['FAILED', { statusText: 'tests failed' }, undefined, '❌ fix the flaky login test failed: tests failed'],
    ['FAILED without a status text', {}, undefined, '❌ fix the flaky login test failed.'],
    ['ERROR', { statusText: 'out of memory' }, undefined, '❌ fix the flaky login test stopped with an error: out of memory'],
    ['CANCELLED', {}, 'Grace Hopper', '🚫 Cancelled by Grace Hopper: fix the flaky login test'],
    ['CANCELLED by nobody known', {}, undefined, '🚫 Cancelled: fix the flaky login test'],
    ['BLOCKED', { statusText: 'which database?' }, undefined, '✋ fix the flaky login test needs your inputwhich database?Reply in this thread to answer.'],
    ['INPROGRESS (any other state)', { statusText: 'halfway' }, undefined, 'fix the flaky login test: INPROGRESS — halfway'],
  ])('%s', (name, overrides, cancelledBy, said) => {
    const state = name.split(' ')[0]!;
    expect(words(announceCard(snapshot({ state, ...overrides }), cancelledBy))).toContain(said);
  });

  it('a failure says how to try again, and offers the session only when it links to one', () => {
    expect(words(announceCard(snapshot({ state: 'FAILED', sessionLink: SESSION })))).toContain(
      'reply in this thread to continue the run, or open the session.',
    );
    for (const sessionLink of [undefined, 'javascript:alert(1)', 'http://agents.example.com/s/1']) {
      const card = announceCard(snapshot({ state: 'FAILED', ...(sessionLink !== undefined && { sessionLink }) }));
      expect(words(card)).toContain('reply in this thread to continue the run.');
      expect(opens(card)).toEqual([]);
    }
  });

  it('every pull request is a button and a line, in order; the session first', () => {
    const pullRequests = ['https://github.com/acme/web/pull/7', 'https://github.com/acme/api/pull/8'];
    const card = announceCard(snapshot({ state: 'SUCCEEDED', sessionLink: SESSION, pullRequests }));
    expect(opens(card)).toEqual([
      { type: 'Action.OpenUrl', title: 'Open session', url: SESSION },
      { type: 'Action.OpenUrl', title: 'Pull request 1', url: pullRequests[0] },
      { type: 'Action.OpenUrl', title: 'Pull request 2', url: pullRequests[1] },
    ]);
    const lines = cardNodes(card.body).filter((node) => node['type'] === 'RichTextBlock');
    expect(lines.slice(1)).toEqual(
      pullRequests.map((url) => ({
        type: 'RichTextBlock',
        inlines: [
          { type: 'TextRun', text: 'Pull request: ' },
          { type: 'TextRun', text: url, selectAction: { type: 'Action.OpenUrl', title: url, url }, color: 'Accent' },
        ],
      })),
    );
    expect(opens(announceCard(snapshot({ state: 'SUCCEEDED', pullRequests: pullRequests.slice(0, 1) })))).toEqual([
      { type: 'Action.OpenUrl', title: 'Pull request', url: pullRequests[0] },
    ]);
  });

  it('a pull request that is no https link is a line of words, never a button or a link', () => {
    const card = announceCard(snapshot({ state: 'SUCCEEDED', pullRequests: ['javascript:alert(1)', 'https://github.com/acme/web/pull/7'] }));
    expect(opens(card)).toEqual([{ type: 'Action.OpenUrl', title: 'Pull request', url: 'https://github.com/acme/web/pull/7' }]);
    expect(words(card)).toContain('Pull request: javascript:alert(1)');
    expect(cardNodes(card).filter((node) => node['url'] === 'javascript:alert(1)')).toEqual([]);
  });
});

describe('noticeCard', () => {
  it('its words as written, its https links as a TextRun’s selectAction', () => {
    const card = noticeCard(['See ', { url: 'https://github.com/acme/web/pull/7#review', label: 'the review' }, ' and ', { url: SESSION }]);
    expect(card.body).toEqual([
      {
        type: 'RichTextBlock',
        inlines: [
          { type: 'TextRun', text: 'See ' },
          {
            type: 'TextRun',
            text: 'the review',
            selectAction: { type: 'Action.OpenUrl', title: 'the review', url: 'https://github.com/acme/web/pull/7#review' },
            color: 'Accent',
          },
          { type: 'TextRun', text: ' and ' },
          { type: 'TextRun', text: SESSION, selectAction: { type: 'Action.OpenUrl', title: SESSION, url: SESSION }, color: 'Accent' },
        ],
      },
    ]);
    expect(card).not.toHaveProperty('actions');
  });

  it.each([
    ['http', { url: 'http://agents.example.com/s/1', label: 'the session' }, 'the session (http://agents.example.com/s/1)'],
    ['javascript:', { url: 'javascript:alert(1)', label: 'click' }, 'click (javascript:alert(1))'],
    ['an unlabelled one', { url: 'ftp://files.example.com/x' }, 'ftp://files.example.com/x'],
  ])('a link that is not https (%s) is words, not a link', (_what, link, said) => {
    const card = noticeCard([link]);
    expect(words(card)).toBe(said);
    expect(cardNodes(card).filter((node) => 'selectAction' in node || node['type'] === 'Action.OpenUrl')).toEqual([]);
  });
});

describe('approvalCard', () => {
  const question = {
    approvalId: 'apr_1',
    title: 'deploy the hotfix',
    requester: 'Ada Lovelace',
    route: 'teams-web',
    expiresAt: Date.parse('2026-03-02T10:00:00.123Z'),
  };

  it('asks with Approve and Reject, both carrying the approval’s id', () => {
    const card = approvalCard(question);
    expect(words(card)).toBe('Waiting for approval: deploy the hotfixAsked by Ada Lovelace on route teams-web. Expires 2026-03-02T10:00:00Z.');
    expect(actions(card)).toEqual([
      { type: 'Action.Execute', title: 'Approve', verb: APPROVE_VERB, data: { approvalId: 'apr_1' }, style: 'positive' },
      { type: 'Action.Execute', title: 'Reject', verb: REJECT_VERB, data: { approvalId: 'apr_1' }, style: 'destructive' },
    ]);
    expect([APPROVE_VERB, REJECT_VERB]).toEqual(['approve_run', 'reject_run']);
  });

  it('names “someone” when the requester is unknown, and links the request only over https', () => {
    expect(words(approvalCard({ ...question, requester: undefined }))).toContain('Asked by someone on route');
    expect(opens(approvalCard({ ...question, threadUrl: 'https://teams.microsoft.com/l/message/1' }))).toEqual([
      { type: 'Action.OpenUrl', title: 'Open the request', url: 'https://teams.microsoft.com/l/message/1' },
    ]);
    expect(opens(approvalCard({ ...question, threadUrl: 'javascript:alert(1)' }))).toEqual([]);
  });

  it.each([
    ['rejected', '🚫 Rejected'],
    ['expired', '⌛ Expired without approval'],
  ] as const)('once %s: says so, with no buttons left', (outcome, said) => {
    const card = approvalCard({ ...question, outcome });
    expect(words(card)).toBe(`deploy the hotfix${said}`);
    expect(card).not.toHaveProperty('actions');
  });
});
