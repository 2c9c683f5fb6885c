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

describe('comments say why, not which issue', () => {
  it('no comment of src, test, bench or scripts cites an issue number', { timeout: 60_000 }, () => {
    const files = typeScriptFiles(ROOT, ['src', 'test', 'bench', 'scripts']);
    expect(files.length).toBeGreaterThan(300);
    expect(issueCitations(ROOT, files)).toEqual([]);
  });

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
