import { describe, expect, it } from 'vitest';
import { cardNodes, textRuns } from '../../test/teams/card-reading.js';
import type { RunSnapshot } from '../core/ports/messages.js';
import { announceCard, approvalCard, linkable, noticeCard, statusCard, type AdaptiveCard } from './cards.js';

/* Text from people and the run API is shown as written on every card: it can neither become markup nor a link. */

type Json = Record<string, unknown>;

const words = (card: AdaptiveCard) => textRuns(card.body);
const actions = (card: AdaptiveCard) => card.actions ?? [];
const snapshot = (overrides: Partial<RunSnapshot>): RunSnapshot => ({ runId: 'run_1', title: 't', state: 'INPROGRESS', pullRequests: [], ...overrides });

describe('text from people and the run API never becomes markup', () => {
  /** Markdown, a mention, an Adaptive Card template and a bare link, each a distinct mark to find. */
  const hostile = (mark: string) =>
    `**${mark}** [${mark}](https://evil.example/${mark}) ![${mark}](https://evil.example/${mark}.png) <at>${mark}</at> \${${mark}} {{DATE(${mark})}} https://evil.example/${mark}`;
  const run = snapshot({
    title: hostile('TITLE'),
    statusText: hostile('STATUS'),
    options: hostile('OPTIONS'),
    sessionLink: `javascript:${hostile('SESSION')}`,
    pullRequests: [`https://github.com/acme/web/pull/7?${hostile('PULL')}`, hostile('NOTAPULL')],
  });
  const cards: Array<[string, AdaptiveCard]> = [
    ['received', statusCard(hostile('TITLE'), { kind: 'received', requester: hostile('REQUESTER'), about: hostile('ABOUT') })],
    ['run', statusCard(run.title, { kind: 'run', run, about: hostile('ABOUT') })],
    ['stopping', statusCard(run.title, { kind: 'stopping', run, requestedBy: hostile('BY') })],
    ['start_failed', statusCard(run.title, { kind: 'start_failed', title: run.title, reason: hostile('REASON') })],
    ...['SUCCEEDED', 'FAILED', 'CANCELLED', 'BLOCKED', 'INPROGRESS'].map((state): [string, AdaptiveCard] => [
      `announce ${state}`,
      announceCard({ ...run, state }, hostile('BY')),
    ]),
    [
      'notice',
      noticeCard([hostile('WORDS'), { url: 'https://agents.example.com/x', label: hostile('LABEL') }, { url: hostile('BADURL'), label: hostile('LABEL') }]),
    ],
    ['approval', approvalCard({ approvalId: hostile('ID'), title: hostile('TITLE'), requester: hostile('REQUESTER'), route: hostile('ROUTE'), expiresAt: 0 })],
  ];

  it.each(cards)('%s: only rich text runs, no TextBlock, nothing that renders Markdown', (_name, card) => {
    const types = new Set(cardNodes(card).flatMap((node) => ('type' in node ? [node['type']] : [])));
    expect([...types].filter((type) => !['AdaptiveCard', 'RichTextBlock', 'TextRun', 'Action.OpenUrl', 'Action.Execute'].includes(String(type)))).toEqual([]);
    expect(cardNodes(card).filter((node) => 'markdown' in node || node['type'] === 'TextBlock')).toEqual([]);
  });

  it.each(cards)('%s: every hostile word stands in a TextRun’s text (or a link’s own title), and every link is https', (_name, card) => {
    const misplaced: string[] = [];
    const visit = (value: unknown, parent: Json | undefined, key: string) => {
      if (typeof value === 'string') {
        if (!/TITLE|STATUS|OPTIONS|SESSION|PULL|REQUESTER|ABOUT|BY|REASON|WORDS|LABEL|BADURL|ROUTE/.test(value)) return;
        const inText = parent?.['type'] === 'TextRun' && key === 'text';
        const inOwnLink = parent?.['type'] === 'Action.OpenUrl' && (key === 'title' || key === 'url') && linkable(String(parent['url']));
        if (!inText && !inOwnLink) misplaced.push(`${String(parent?.['type'])}.${key}`);
      } else if (Array.isArray(value)) value.forEach((item) => visit(item, parent, key));
      else if (value && typeof value === 'object') for (const [name, item] of Object.entries(value)) visit(item, value as Json, name);
    };
    visit(card, undefined, '');
    expect(misplaced).toEqual([]);
    expect(
      cardNodes(card)
        .filter((node) => 'url' in node)
        .map((node) => String(node['url']))
        .filter((url) => !url.startsWith('https://')),
    ).toEqual([]);
  });

  it('the approval’s id is data the card sends back, never shown', () => {
    const card = cards.find(([name]) => name === 'approval')![1];
    expect(words(card)).not.toContain('ID');
    expect(actions(card).map((action) => action['data'])).toEqual([{ approvalId: hostile('ID') }, { approvalId: hostile('ID') }]);
  });
});
