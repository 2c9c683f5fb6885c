import { describe, expect, it } from 'vitest';
import {
  confidentialIssueOpened,
  diffNote,
  gitlabEvilDeliveries,
  issueLabelled,
  issueNote,
  mergeRequestMerged,
  pipelineFailed,
  type GitlabEventFixture,
} from '../../test/fixtures/gitlab/index.js';
import { parseGitlabWebhook } from './parse-webhook.js';

const parse = (event: GitlabEventFixture) => parseGitlabWebhook(event.hook, JSON.stringify(event.body));

describe('parseGitlabWebhook', () => {
  it.each([
    ['an issue labelled', issueLabelled(7, 'agent'), 'issue'],
    ['a confidential issue (its own hook)', confidentialIssueOpened(8, { labels: ['agent'] }), 'issue'],
    ['a note on an issue', issueNote(7, '@agent go'), 'note'],
    ['a diff note', diffNote(5, '@agent look'), 'note'],
    ['a merge', mergeRequestMerged(5), 'merge_request'],
    ['a failed pipeline', pipelineFailed(5), 'pipeline'],
  ])('reads %s', (_name, event, kind) => {
    const parsed = parse(event);
    expect(parsed.ok && 'event' in parsed ? parsed.event.kind : parsed).toBe(kind);
  });

  it.each(
    gitlabEvilDeliveries()
      .filter((entry) => entry.expect === 'reject')
      .map((entry) => [entry.name, entry] as const),
  )('refuses %s, naming the field and never its value', (_name, entry) => {
    const parsed = parseGitlabWebhook(entry.hook, entry.body);
    expect(parsed.ok).toBe(false);
    const reason = parsed.ok ? '' : parsed.reason;
    if (entry.field) expect(reason).toContain(entry.field);
    expect(reason).not.toContain('DROP TABLE');
  });

  it.each([
    ['a push', 'Push Hook', '{"object_kind":"push"}'],
    ['a hook it does not know', 'Emoji Hook', '{"object_kind":"emoji"}'],
  ])('ignores %s (200, nothing read)', (_name, hook, body) => {
    expect(parseGitlabWebhook(hook, body)).toEqual({ ok: true, ignored: `${hook} is not handled` });
  });

  it.each([
    ['no X-Gitlab-Event', undefined],
    ['a header that is not a hook name', 'Issue Hook; drop'],
  ])('refuses %s', (_name, hook) => {
    expect(parseGitlabWebhook(hook, JSON.stringify(issueNote(7, 'x').body))).toEqual({ ok: false, reason: 'X-Gitlab-Event is missing or malformed' });
  });
});
