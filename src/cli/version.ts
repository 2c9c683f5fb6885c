import { readFileSync } from 'node:fs';

/**
 * The version in package.json, read at run time. The path is the same from src/cli/ (tsx) and from
 * dist/cli/ (the installed package), so `--version` always tells what is installed, never a copy.
 */
export function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const version: unknown = (JSON.parse(text) as { version?: unknown }).version;
  if (typeof version !== 'string') throw new Error('package.json has no version');
  return version;
}
