import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/spawn-cli.js';
import { typeScriptFiles } from './comments.js';
import { citingFiles, issueCitations } from './issue-citations.js';

/*
 * A comment that gives an issue's number instead of a reason sends a newcomer to a tracker the
 * repository does not hold: comments say the why.
 */

/**
 * The files still citing issue numbers while their owners rewrite them. The list only shrinks: a file
 * not on it that cites one fails, and so does a listed file that no longer does (take it off).
 */
const CITING_TODAY: readonly string[] = [
  'src/compose/display-names.ts',
  'src/compose/people.ts',
  'src/compose/run-keys.ts',
  'src/config/file-schema.ts',
  'src/console/audit-acts.ts',
  'src/console/pages/audit-page.ts',
  'src/console/pages/keys-page.ts',
  'src/console/pages/my-key-page.ts',
  'src/console/pages/usage-page.ts',
  'src/console/people-cells.ts',
  'src/console/people-links.ts',
  'src/console/usage-chart.ts',
  'src/core/approvals/approval-desk.ts',
  'src/core/intake/hold-for-approval.ts',
  'src/github/acts.ts',
  'src/github/github-api.ts',
  'src/github/github-notifier.ts',
  'src/github/index.ts',
  'src/github/normalise.ts',
  'src/github/parse-webhook.ts',
  'src/github/prompt-context.ts',
  'src/github/pull-request-acts.ts',
  'src/github/surface.ts',
  'src/jira/adf.test.ts',
  'src/jira/adf.ts',
  'src/jira/comment-text.ts',
  'src/jira/config/jira-config.test.ts',
  'src/jira/index.ts',
  'src/jira/issue-linker.ts',
  'src/jira/jira-api.ts',
  'src/jira/jira-notifier.test.ts',
  'src/jira/jira-notifier.ts',
  'src/jira/normalise.ts',
  'src/jira/parse-webhook.ts',
  'src/jira/surface.ts',
  'src/linear/comment-text.test.ts',
  'src/linear/issue-linker.ts',
  'src/linear/project-trigger.ts',
  'src/linear/queries.ts',
  'src/linear/surface.ts',
  'src/people/display-names.ts',
  'src/people/identity.ts',
  'src/people/key-box.ts',
  'src/people/key-check.ts',
  'src/people/key-page.ts',
  'src/people/key-refusals.ts',
  'src/people/person-keys.ts',
  'src/people/run-keys.ts',
];

describe('comments say why, not which issue', () => {
  it(
    'no comment of src, test, bench or scripts cites an issue number, the files still on the list aside, and every one of them still does',
    { timeout: 60_000 },
    () => {
      const files = typeScriptFiles(ROOT, ['src', 'test', 'bench', 'scripts']);
      expect(files.length).toBeGreaterThan(300);
      const citations = issueCitations(ROOT, files);
      const citing = citingFiles(citations);
      expect({
        'cites an issue number, not on the list: say the reason instead': citations.filter(
          (citation) => !CITING_TODAY.some((path) => citation.startsWith(`${path}:`)),
        ),
        'on the list, no longer cites one: take it off the list': CITING_TODAY.filter((path) => !citing.includes(path)),
      }).toEqual({
        'cites an issue number, not on the list: say the reason instead': [],
        'on the list, no longer cites one: take it off the list': [],
      });
    },
  );

  it('the check finds a number in line, block and doc comments, on the line it is on, and none in strings, templates or test titles', () => {
    const dir = tempDir('issue-citations-');
    const lines = [
      '// Retried at once (issue 12): the lease ran out.',
      '/*',
      ' * Two starts race for one slot;',
      ' * Issue 27.2 says so.',
      ' */',
      '/** Kept sealed (issues #20 and 21). */',
      "const title = 'a Linear issue 7 (issue 31)';",
      'const shown = `issue ${title} issue 9`; // after a template: issue 4',
      "it('refuses it (issue 16)', () => title);",
      '// An issue is bound to its run; issue keys such as ENG-12 are no citation.',
      'export const all = [shown];',
    ];
    writeFileSync(join(dir, 'citing.ts'), `${lines.join('\n')}\n`);
    const citations = issueCitations(dir, [join(dir, 'citing.ts')]);
    expect(citations).toEqual([
      'citing.ts:1: // Retried at once (issue 12): the lease ran out.',
      'citing.ts:4: * Issue 27.2 says so.',
      'citing.ts:6: /** Kept sealed (issues #20 and 21). */',
      'citing.ts:8: // after a template: issue 4',
    ]);
    expect(citingFiles(citations)).toEqual(['citing.ts']);
  });
});
