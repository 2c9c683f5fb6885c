/**
 * Builds the programs tests start as child processes — the command line and the services the
 * crash and stress suites kill and restart — into one file each, from the sources as they are now,
 * before any test runs (vitest's global setup). A child started through the tsx loader compiles and
 * loads about 500 modules through loader hooks: 2.4 s of CPU a start, against 1.2 s for a bundle, and
 * on a busy machine a restarted replica took 15–28 s to listen. Packages stay outside the bundle (the
 * children load them from node_modules as the service does).
 *
 * The bundles sit two folders below the repository root, as the sources do, so that what a source
 * finds relative to itself (`host/version.ts` reads `../../package.json`) is found from a bundle too.
 */
import { mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { BUNDLED_CHILDREN, CHILD_BUNDLES, ROOT, bundleName } from '../helpers/child-programs.js';

export default async function bundleChildren(): Promise<void> {
  mkdirSync(CHILD_BUNDLES, { recursive: true });
  const started = Date.now();
  await build({
    entryPoints: Object.fromEntries(BUNDLED_CHILDREN.map((file) => [bundleName(file), join(ROOT, file)])),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    // What a child loads by import() stays a chunk of its own, loaded only then, as in dist/: tracing's
    // SDK when it is off, a surface's library when the surface is off.
    splitting: true,
    outdir: CHILD_BUNDLES,
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
  if (process.env['CHILD_BUNDLES_VERBOSE'])
    console.log(`bundled ${BUNDLED_CHILDREN.length} child programs into ${relative(ROOT, CHILD_BUNDLES)} in ${Date.now() - started} ms`);
}
