import { readFileSync } from 'node:fs';

/**
 * The version in package.json, read at run time. The path is the same from src/host/ (tsx) and from
 * dist/host/ (the installed package), so `--version` and the metrics tell what is installed, never a copy.
 * It lives below the CLI, the console and the metrics alike, so none of them imports another for it.
 */
export function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const version: unknown = (JSON.parse(text) as { version?: unknown }).version;
  if (typeof version !== 'string') throw new Error('package.json has no version');
  return version;
}
