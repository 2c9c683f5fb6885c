import { describe, expect, it } from 'vitest';
import type { IssueLinker, IssueLookup } from '../core/ports/issue-links.js';
import { anyIssueLinker } from './issue-linkers.js';

const answering = (lookup: IssueLookup | undefined, asked: string[], name: string): IssueLinker => ({
  lookup: async () => {
    asked.push(name);
    return lookup;
  },
});
const linked = (anchor: string): IssueLookup => ({ kind: 'linked', issue: { anchor, otherAnchors: [], ref: 'ENG-7', title: 't', url: 'u', context: 'c' } });

describe('anyIssueLinker (slack.link_linear_issues and slack.link_jira_issues together)', () => {
  it('one linker is itself; none is none', () => {
    const only = answering(undefined, [], 'only');
    expect(anyIssueLinker([only])).toBe(only);
    expect(anyIssueLinker([])).toBeUndefined();
  });

  it('the first tracker that finds the issue wins; a refusal never hides a later find', async () => {
    const asked: string[] = [];
    const both = anyIssueLinker([
      answering({ kind: 'refused', reason: 'no such Linear issue' }, asked, 'linear'),
      answering(linked('jira:ENG-7'), asked, 'jira'),
    ]);
    expect(await both?.lookup('ENG-7')).toMatchObject({ kind: 'linked', issue: { anchor: 'jira:ENG-7' } });
    expect(asked).toEqual(['linear', 'jira']);
  });

  it('when none finds it, the first refusal is said; when none names one, nothing', async () => {
    const refusing = anyIssueLinker([answering(undefined, [], 'linear'), answering({ kind: 'refused', reason: 'no such Jira issue' }, [], 'jira')]);
    expect(await refusing?.lookup('ENG-7')).toEqual({ kind: 'refused', reason: 'no such Jira issue' });
    expect(await anyIssueLinker([answering(undefined, [], 'a'), answering(undefined, [], 'b')])?.lookup('x')).toBeUndefined();
  });
});
