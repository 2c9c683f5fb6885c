import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/spawn-cli.js';
import { staleCitations } from './cited-paths.js';
import { typeScriptFiles } from './comments.js';

// Comments cite where a rule lives; a citation left behind by a move sends the reader nowhere.
describe('the paths and sections comments cite exist', () => {
  it('every repository path, source file name and docs section cited in a comment of src, test, bench or scripts exists', { timeout: 60_000 }, () => {
    const files = typeScriptFiles(ROOT, ['src', 'test', 'bench', 'scripts']);
    expect(files.length).toBeGreaterThan(300);
    expect(staleCitations(ROOT, files)).toEqual([]);
  });

  it('the check finds a missing path, file name, section and design document, in comments only, and leaves URLs, globs and other places alone', () => {
    const root = tempDir('cited-');
    mkdirSync(join(root, 'src/core'), { recursive: true });
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs/architecture.md'), '# Architecture\n\n## 1. Ports\n');
    writeFileSync(join(root, 'src/core/loop.ts'), 'export const loop = 1;\n');
    const lines = [
      '// src/core/loop.ts, core/loop.ts, ./core/loop.js, loop.ts and docs/architecture.md §1 are there.',
      '/**',
      ' * But not core/gone.ts (moved), nor `gone-step.ts`, nor docs/architecture.md §2,',
      ' * nor docs/gone.md, nor design §4, nor gone.md §1.',
      ' */',
      "const inString = 'src/core/in-a-string.ts';",
      'const inTemplate = `${inString} core/in-a-template.ts`; // after a template: src/core/after-template.ts',
      'const inRegex = /\\/\\/ core\\/in-a-regex.ts/;',
      '// https://example.com/src/core/gone.ts, src/**/*.test.ts, src/<name>/surface.ts, path/to/SKILL.md, dist/cli.js, ./agent-bridge.yml, /src/gone.ts',
      'export const all = [inTemplate, inRegex];',
    ];
    writeFileSync(join(root, 'src/citing.ts'), `${lines.join('\n')}\n`);
    expect(staleCitations(root, [join(root, 'src/citing.ts')])).toEqual([
      'src/citing.ts:3: core/gone.ts',
      'src/citing.ts:3: gone-step.ts',
      'src/citing.ts:3: docs/architecture.md §2 (no such section)',
      'src/citing.ts:4: docs/gone.md',
      'src/citing.ts:4: design §4 (no design document in the repository: cite docs/)',
      'src/citing.ts:4: gone.md §1 (no such document)',
      'src/citing.ts:7: src/core/after-template.ts',
    ]);
  });
});
