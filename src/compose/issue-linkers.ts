/**
 * The issue trackers a chat request may name (`slack.link_linear_issues`, `slack.link_jira_issues`):
 * the intake worker asks one `IssueLinker` per source, so several trackers are asked in turn here.
 */
import type { IssueLinker, IssueLookup } from '../core/ports/issue-links.js';

/**
 * The first tracker that finds the issue the text names wins; when none does, the first refusal is
 * said (an `ENG-7` that is no Linear issue may be a Jira one: a refusal never hides a later find).
 */
export function anyIssueLinker(linkers: readonly IssueLinker[]): IssueLinker | undefined {
  if (linkers.length <= 1) return linkers[0];
  return {
    lookup: async (text) => {
      let refused: IssueLookup | undefined;
      for (const linker of linkers) {
        const found = await linker.lookup(text);
        if (found?.kind === 'linked') return found;
        refused ??= found;
      }
      return refused;
    },
  };
}
