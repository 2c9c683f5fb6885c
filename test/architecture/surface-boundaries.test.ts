import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SURFACE_MODULES } from '../../src/surface-list.js';
import { ROOT, tempDir } from '../helpers/spawn-cli.js';
import { typeScriptFiles } from './comments.js';
import { localImports, sourceFiles } from './import-graph.js';

const SRC = join(ROOT, 'src');
const SURFACES = SURFACE_MODULES.map((surface) => surface.name);

/** The surface whose folder of `src` holds `file`, if any. */
function surfaceOf(src: string, file: string, surfaces: readonly string[]): string | undefined {
  const [folder, ...rest] = relative(src, file).split('/');
  return rest.length > 0 && folder !== undefined && surfaces.includes(folder) ? folder : undefined;
}

/**
 * Every import, tests included, from one surface's folder into another's (a file of `src/github/`
 * importing one of `src/linear/`): what two surfaces share belongs in a neutral place
 * (`src/surface-kit/`), or removing a surface would break another.
 */
function crossSurfaceImports(src: string, surfaces: readonly string[]): string[] {
  const files = typeScriptFiles(src, surfaces);
  return files.flatMap((file) => {
    const own = surfaceOf(src, file, surfaces);
    return localImports(file)
      .filter((target) => {
        const other = surfaceOf(src, target, surfaces);
        return other !== undefined && other !== own;
      })
      .map((target) => `${relative(src, file)} → ${relative(src, target)}`);
  });
}

describe('surfaces stand apart', () => {
  it('the registered surfaces each have a folder of their own', () => {
    expect(SURFACES.length).toBeGreaterThan(3);
    for (const name of SURFACES) expect(sourceFiles(join(SRC, name)).length).toBeGreaterThan(0);
  });

  it("no file of a surface's folder imports from another surface's folder", () => {
    expect(crossSurfaceImports(SRC, SURFACES)).toEqual([]);
  });

  it('the check finds an import of another surface, a test’s too, and leaves its own and neutral ones alone', () => {
    const src = tempDir('surfaces-');
    for (const folder of ['alpha', 'beta', 'kit']) mkdirSync(join(src, folder));
    writeFileSync(join(src, 'kit/words.ts'), 'export const words = 1;\n');
    writeFileSync(join(src, 'beta/text.ts'), 'export const text = 2;\n');
    writeFileSync(join(src, 'alpha/own.ts'), 'export const own = 3;\n');
    writeFileSync(
      join(src, 'alpha/notifier.ts'),
      "import { words } from '../kit/words.js';\nimport { own } from './own.js';\nimport type { text } from '../beta/text.js';\nexport const all = [words, own];\n",
    );
    writeFileSync(join(src, 'alpha/notifier.test.ts'), "import { text } from '../beta/text.js';\nexport const seen = text;\n");
    expect(crossSurfaceImports(src, ['alpha', 'beta']).sort()).toEqual(['alpha/notifier.test.ts → beta/text.ts', 'alpha/notifier.ts → beta/text.ts']);
  });
});

/** The exported names of `core/ports/setting-names.ts`, each with the non-test source files outside it that use it. */
function settingNameUsers(): Array<{ name: string; users: string[] }> {
  const namesFile = join(SRC, 'core/ports/setting-names.ts');
  const names = [...readFileSync(namesFile, 'utf8').matchAll(/^export (?:function|const) (\w+)/gm)].map((match) => match[1] ?? '');
  const files = sourceFiles(SRC)
    .filter((file) => file !== namesFile)
    .map((file) => ({ path: relative(SRC, file), text: readFileSync(file, 'utf8') }));
  return names.map((name) => ({ name, users: files.filter(({ text }) => new RegExp(`\\b${name}\\b`).test(text)).map(({ path }) => path) }));
}

describe('the core names only settings that are no single surface’s', () => {
  it('has setting names to check', () => {
    expect(settingNameUsers().length).toBeGreaterThan(5);
  });

  // A setting only one surface reads and writes is that surface's: kept in the core, the core's key space names what it cannot know.
  it('no setting name of core/ports/setting-names.ts is used by one surface’s folder alone', () => {
    const owned = settingNameUsers().flatMap(({ name, users }) => {
      const owners = new Set(users.map((path) => surfaceOf('.', path, SURFACES) ?? '(neutral)'));
      const [only] = owners;
      return owners.size === 1 && only !== '(neutral)' ? [`${name}: only src/${only}/ uses it — name it there`] : [];
    });
    expect(owned).toEqual([]);
  });
});
