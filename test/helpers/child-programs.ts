/**
 * The programs tests start as child processes, and how each is started: from its bundle (built by
 * `test/setup/child-bundles.ts` before the tests) when it is one of `BUNDLED_CHILDREN`, else from
 * its TypeScript source through the tsx loader.
 */
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The repository root (tests run from it, but children run in temp folders). */
export const ROOT = resolve(import.meta.dirname, '../..');
/** Where the bundles go: two folders below the root, as the sources are (see child-bundles.ts). */
export const CHILD_BUNDLES = join(ROOT, '.test-build/children');
const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

/** Children started often enough for their start-up to count: the command line and the killed services. */
export const BUNDLED_CHILDREN = [
  'src/cli.ts',
  'test/stress/bridge-child.ts',
  'test/lifecycle/service-child.ts',
  'test/stress/open-child.ts',
  'test/store/race-child.ts',
] as const;

/** The bundle's file name of a source (`src/cli.ts` → `src__cli`). */
export function bundleName(file: string): string {
  return file.replace(/\.ts$/, '').replaceAll('/', '__');
}

/** The arguments of `node` that start `file` (an absolute path of this repository). */
export function nodeArgsFor(file: string): string[] {
  const source = relative(ROOT, file);
  if (!(BUNDLED_CHILDREN as readonly string[]).includes(source)) return ['--import', TSX_LOADER, file];
  const bundle = join(CHILD_BUNDLES, `${bundleName(source)}.mjs`);
  // The global setup builds it before any test: missing means the tests run without vitest's config.
  if (!existsSync(bundle)) throw new Error(`${relative(ROOT, bundle)} is missing: run the tests through vitest (its global setup bundles ${source})`);
  return [bundle];
}
