import { describe, expect, it } from 'vitest';
import { checkRunCompleted, issueComment, labeled, pullRequestClosed, reviewComment, reviewSubmitted } from '../../test/fixtures/github/index.js';
import { parseGithubWebhook } from './parse-webhook.js';

describe('parseGithubWebhook', () => {
  it.each([
    ['issues', labeled(7)],
    ['issue_comment', issueComment(7, '@agent go')],
    ['pull_request', pullRequestClosed(12, true)],
    ['pull_request_review', reviewSubmitted(12, 'changes_requested', null)],
    ['pull_request_review_comment', reviewComment(12, 'Rename this')],
    ['check_run', checkRunCompleted(12)],
  ])('reads a %s delivery', (event, payload) => {
    const parsed = parseGithubWebhook(event, JSON.stringify(payload));
    expect(parsed).toMatchObject({ ok: true, delivery: { event, payload: { repository: { full_name: 'acme/web' } } } });
  });

  it.each([
    ['ping', { zen: 'Keep it logically awesome.', hook_id: 1 }],
    ['push', { ref: 'refs/heads/main' }],
    ['check_suite', { action: 'completed' }],
  ])('answers an event it does not handle (%s) as ignored', (event, payload) => {
    expect(parseGithubWebhook(event, JSON.stringify(payload))).toEqual({ ok: true, ignored: `event ${event} is not handled` });
  });

  it.each<[string, string | undefined, string, RegExp]>([
    ['no event header', undefined, '{}', /X-GitHub-Event/],
    ['a strange event header', 'Issues!', '{}', /X-GitHub-Event/],
    ['not JSON', 'issues', '{"action":', /not JSON/],
    ['a JSON array', 'issues', '[1]', /not a JSON object/],
    ['no repository', 'issues', JSON.stringify({ ...labeled(7), repository: undefined }), /issues: repository is missing/],
    [
      'an issue number as text',
      'issues',
      JSON.stringify({ ...labeled(7), issue: { ...(labeled(7)['issue'] as object), number: '7' } }),
      /issues: issue\.number/,
    ],
    ['a comment without id', 'issue_comment', JSON.stringify({ ...issueComment(7, 'x'), comment: { body: 'x' } }), /issue_comment: comment\.id/],
    ['check runs without pull_requests', 'check_run', JSON.stringify({ ...checkRunCompleted(1), check_run: { id: 1, name: 'x' } }), /check_run\.pull_requests/],
    ['a repository name with spaces', 'issues', JSON.stringify({ ...labeled(7), repository: { full_name: 'a b/c' } }), /repository\.full_name is invalid/],
  ])('refuses %s (400, naming the field)', (_what, event, body, reason) => {
    const parsed = parseGithubWebhook(event, body);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok === false && parsed.reason).toMatch(reason);
  });
});
