import { describe, expect, it } from 'vitest';
import { parseJiraWebhook } from './parse-webhook.js';

const issue = { id: '10001', key: 'ENG-1', fields: { summary: 'Fix it', description: 'plain v2 text', labels: ['agent'], project: { key: 'ENG' } } };
const user = { accountId: 'acc-1', displayName: 'Grace' };

describe('parseJiraWebhook', () => {
  it('reads a label change from the changelog', () => {
    const parsed = parseJiraWebhook(
      JSON.stringify({
        webhookEvent: 'jira:issue_updated',
        user,
        issue,
        changelog: { id: 7, items: [{ field: 'labels', fromString: '', toString: 'agent' }] },
      }),
    );
    expect(parsed).toMatchObject({
      ok: true,
      webhook: { event: 'jira:issue_updated', issue: { key: 'ENG-1' }, changelog: { id: '7' }, user: { accountId: 'acc-1' } },
    });
  });

  it('reads a description or comment body as a v2 string or as ADF', () => {
    const adf = { type: 'doc', version: 1, content: [{ type: 'paragraph', content: [{ type: 'text', text: '@agent go' }] }] };
    const parsed = parseJiraWebhook(JSON.stringify({ webhookEvent: 'comment_created', issue, comment: { id: '5', body: adf, author: user } }));
    expect(parsed).toMatchObject({
      ok: true,
      webhook: { event: 'comment_created', comment: { body: '@agent go' }, issue: { fields: { description: 'plain v2 text' } } },
    });
  });

  it('treats null as absent', () => {
    const parsed = parseJiraWebhook(
      JSON.stringify({
        webhookEvent: 'jira:issue_created',
        user: null,
        changelog: null,
        issue: { ...issue, fields: { summary: null, labels: null, description: null } },
      }),
    );
    expect(parsed.ok).toBe(true);
  });

  it('answers an event it does not read as valid, unchecked', () => {
    expect(parseJiraWebhook(JSON.stringify({ webhookEvent: 'board_created', board: 7 }))).toEqual({
      ok: true,
      webhook: { event: 'other', name: 'board_created' },
    });
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['an array', '[]', /JSON object/],
    ['no event', '{}', /webhookEvent/],
    ['no issue', JSON.stringify({ webhookEvent: 'jira:issue_created' }), /issue/],
    ['a bad key', JSON.stringify({ webhookEvent: 'jira:issue_created', issue: { ...issue, key: 'ENG 1' } }), /issue\.key/],
    ['labels as text', JSON.stringify({ webhookEvent: 'jira:issue_created', issue: { ...issue, fields: { labels: 'agent' } } }), /issue\.fields\.labels/],
    ['a comment event without comment', JSON.stringify({ webhookEvent: 'comment_created', issue }), /comment/],
    [
      'an author without accountId',
      JSON.stringify({ webhookEvent: 'comment_created', issue, comment: { id: '1', body: 'x', author: {} } }),
      /comment\.author\.accountId/,
    ],
  ])('refuses %s, naming the field', (_what, text, reason) => {
    const parsed = parseJiraWebhook(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.reason).toMatch(reason);
  });
});
