import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/spawn-cli.js';
import { typeScriptFiles } from './comments.js';
import { strandedDocComments } from './doc-comments.js';

// A doc comment is read as the doc of the declaration under it; one whose declaration moved away
// ends up stacked on another declaration's doc, where it describes the wrong thing.
describe('every doc comment sits on its declaration', () => {
  it('no doc comment in src, test, bench or scripts is stacked on another one, file headers aside', { timeout: 60_000 }, () => {
    const files = typeScriptFiles(ROOT, ['src', 'test', 'bench', 'scripts']);
    expect(files.length).toBeGreaterThan(300);
    expect(strandedDocComments(ROOT, files)).toEqual([]);
  });

  it('the check finds a doc comment left above another declaration’s, also across a blank line, and leaves file headers alone', () => {
    const dir = tempDir('stranded-');
    const lines = [
      "import { a } from './a.js';",
      '',
      '/** The file: a header after the imports. */',
      '',
      '/** Whether `n` is even. */',
      '/** Doubles `n`. */',
      'export function double(n: number): number {',
      '  return 2 * n;',
      '}',
      '',
      '/**',
      ' * A store of numbers.',
      ' */',
      '',
      '/** A number kept. */',
      'export interface Kept {',
      '  /** The number. */',
      '  value: number;',
      '}',
      '',
      'export const even = (n: number) => n % 2 === 0 && a;',
    ];
    writeFileSync(join(dir, 'numbers.ts'), `${lines.join('\n')}\n`);
    expect(strandedDocComments(dir, [join(dir, 'numbers.ts')])).toEqual(['numbers.ts:5: /** Whether `n` is even. */', 'numbers.ts:11: /**']);
  });
});
