import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/spawn-cli.js';
import { longFunctions } from './function-length.js';
import { folderCycles, importCycles, localImports, sourceFiles } from './import-graph.js';

const SRC = join(ROOT, 'src');
const CORE = join(SRC, 'core');
const PORTS = join(CORE, 'ports');

describe('the layout stays readable', () => {
  const files = sourceFiles(SRC);

  it('has files to check', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it('no file in src is part of an import cycle (type-only imports included)', () => {
    expect(importCycles(files)).toEqual([]);
  });

  it('no two folders of src import each other, even through others (src/main.ts and src/cli.ts count as folders of their own)', () => {
    expect(folderCycles(SRC, files)).toEqual([]);
  });

  it('the Slack access policy is built in one place, and the intake and the Slack listeners share it', () => {
    const builders = files.filter((file) => /\bslackAccessPolicy\(/.test(readFileSync(file, 'utf8')) && !file.endsWith('slack/access.ts'));
    expect(builders.map((file) => relative(ROOT, file))).toHaveLength(1);
  });

  it('no function takes more than a screen to read (100 lines), split by what it does instead', () => {
    expect(longFunctions(files, 100)).toEqual([]);
  });

  it('the function length check finds a long arrow function inside a short one, by the name it is bound to', () => {
    const dir = tempDir('long-');
    const body = Array.from({ length: 8 }, (_, line) => `    const v${line} = ${line};`).join('\n');
    writeFileSync(join(dir, 'long.ts'), `export function outer() {\n  const inner = () => {\n${body}\n  };\n  return inner;\n}\n`);
    expect(longFunctions([join(dir, 'long.ts')], 9).map(({ name, lines }) => ({ name, lines }))).toEqual([
      { name: 'outer', lines: 13 },
      { name: 'inner', lines: 10 },
    ]);
    expect(longFunctions([join(dir, 'long.ts')], 10).map(({ name }) => name)).toEqual(['outer']);
  });

  it('the core is cut by feature: every core file lives in a sub-folder or is a shared helper', () => {
    const folders = new Set(
      sourceFiles(CORE)
        .map((file) => relative(CORE, file).split('/')[0])
        .filter((part) => !part?.endsWith('.ts')),
    );
    expect([...folders].sort()).toEqual(expect.arrayContaining(['intake', 'outbox', 'ports', 'schedules', 'tracker']));
  });

  // Everything reaches a surface through the `Surface` port; person links are by (surface, user id).
  it('the core names no surface: no core file (tests aside) says slack, linear, github or jira, in code or comment', () => {
    const named = sourceFiles(CORE).flatMap((file) => {
      const path = relative(ROOT, file);
      return readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) => (/slack|linear|github|jira/i.test(line) ? [`${path}:${index + 1}: ${line.trim()}`] : []));
    });
    expect(named).toEqual([]);
  });

  it('the ports depend on nothing but other ports', () => {
    const outside = sourceFiles(PORTS).flatMap((file) =>
      localImports(file)
        .filter((target) => !target.startsWith(PORTS))
        .map((target) => `${relative(ROOT, file)} → ${relative(ROOT, target)}`),
    );
    expect(outside).toEqual([]);
  });

  it('the cycle finder finds a cycle, also one closed by a type-only import', () => {
    const dir = tempDir('cycles-');
    mkdirSync(join(dir, 'a'));
    writeFileSync(join(dir, 'a/one.ts'), "import { two } from '../two.js';\nexport const one = two;\n");
    writeFileSync(join(dir, 'two.ts'), "import type { Three } from './three.js';\nexport const two = 2 as unknown as Three;\n");
    writeFileSync(join(dir, 'three.ts'), "import { one } from './a/one.js';\nexport type Three = typeof one;\n");
    writeFileSync(join(dir, 'alone.ts'), "import { two } from './two.js';\nexport const alone = two;\n");
    const cycles = importCycles(sourceFiles(dir));
    expect(cycles).toHaveLength(1);
    expect(cycles[0]?.map((path) => path.split('/').slice(-2).join('/'))).toEqual([
      'a/one.ts',
      expect.stringMatching(/three\.ts$/),
      expect.stringMatching(/two\.ts$/),
    ]);
  });

  it('the folder cycle finder finds a cycle through a third folder and a top-level file, and names the imports that close it', () => {
    const dir = tempDir('folder-cycles-');
    for (const folder of ['a', 'b', 'c', 'd']) mkdirSync(join(dir, folder));
    writeFileSync(join(dir, 'a/one.ts'), "import { two } from '../b/two.js';\nexport const one = two;\n");
    writeFileSync(join(dir, 'b/two.ts'), 'export const two = 2;\n');
    writeFileSync(join(dir, 'b/three.ts'), "import { main } from '../main.js';\nexport const three = main;\n");
    writeFileSync(join(dir, 'main.ts'), "import { one } from './a/one.js';\nexport const main = one;\n");
    writeFileSync(join(dir, 'c/four.ts'), "import { two } from '../b/two.js';\nexport const four = two;\n");
    writeFileSync(join(dir, 'd/five.ts'), "import { four } from '../c/four.js';\nimport { six } from './six.js';\nexport const five = four + six;\n");
    writeFileSync(join(dir, 'd/six.ts'), 'export const six = 6;\n');
    const cycles = folderCycles(dir, sourceFiles(dir));
    expect(cycles).toHaveLength(1);
    expect(cycles[0]?.folders).toEqual(['a', 'b', 'main.ts']);
    expect(cycles[0]?.imports.map((line) => line.replace(/\S*folder-cycles-[^/]*\//g, ''))).toEqual([
      'a/one.ts → b/two.ts',
      'b/three.ts → main.ts',
      'main.ts → a/one.ts',
    ]);
  });
});

describe('the words point at what the repository has', () => {
  it('no source or test file cites design.md or platform-facts, which are not in the repository (docs/ is)', () => {
    const files = ['src', 'test', 'bench', 'scripts'].flatMap((dir) =>
      readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
        .filter((name) => name.endsWith('.ts'))
        .map((name) => join(ROOT, dir, name)),
    );
    expect(files.length).toBeGreaterThan(300);
    // This file names them only to look for them.
    const citing = files.filter((file) => file !== fileURLToPath(import.meta.url) && /design\.md|platform-facts/.test(readFileSync(file, 'utf8')));
    expect(citing.map((file) => relative(ROOT, file))).toEqual([]);
  });

  it('the README is a first read: short, and every file it links to exists', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThan(120);
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((match) => match[1] ?? '').filter((target) => !/^[a-z]+:/.test(target));
    expect(links.length).toBeGreaterThan(5);
    expect(links.filter((target) => !existsSync(join(ROOT, target)))).toEqual([]);
  });
});
