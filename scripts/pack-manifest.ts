/**
 * The package.json `npm pack` puts in the tarball has no `prepare` script. In a clone, `prepare`
 * builds `dist/` on `npm install`; the tarball ships `dist/` built, and npm names every install
 * script of an installed package in its install-scripts warning, ours among them. npm packs the
 * package.json on disk, so `prepack` (after the build) runs `strip`, which keeps the file as it was
 * beside it, and `postpack` runs `restore`, which puts it back byte for byte.
 *
 *   tsx scripts/pack-manifest.ts strip | restore
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const MANIFEST = 'package.json';
/** The clone's own package.json while a pack runs (ignored by git, never packed: `files` does not list it). */
const KEPT = 'package.json.before-pack';

/** package.json's text without `scripts.prepare`. */
function withoutPrepare(text: string): string {
  const manifest = JSON.parse(text) as { scripts?: Record<string, string> };
  if (manifest.scripts) delete manifest.scripts['prepare'];
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

function strip(): void {
  // A pack that failed between prepack and postpack left the clone's file aside: take it back first.
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
  const text = readFileSync(MANIFEST, 'utf8');
  writeFileSync(KEPT, text);
  writeFileSync(MANIFEST, withoutPrepare(text));
}

function restore(): void {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
}

const step = process.argv[2];
if (step === 'strip') strip();
else if (step === 'restore') restore();
else if (step !== undefined) {
  console.error(`pack-manifest: unknown step "${step}" (strip or restore)`);
  process.exit(2);
}
