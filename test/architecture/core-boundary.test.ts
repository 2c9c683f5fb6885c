import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn-cli.js';

const CORE = join(ROOT, 'src/core');
const FORBIDDEN = [/^@slack\//, /^@linear\//, /^better-sqlite3$/, /^pg$/, /^undici$/, /^pino/, /^prom-client$/, /^node-cron$/];
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every package reached from `entry` through relative imports, with the chain that reaches it. */
function reachablePackages(entry: string): Map<string, string[]> {
  const packages = new Map<string, string[]>();
  const seen = new Set<string>();
  const walk = (file: string, chain: string[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of specifiers(file)) {
      if (specifier.startsWith('.')) {
        walk(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')), [...chain, relative(ROOT, file)]);
      } else if (!packages.has(specifier)) {
        packages.set(specifier, [...chain, relative(ROOT, file)]);
      }
    }
  };
  walk(entry, []);
  return packages;
}

describe('the core stays free of platform code', () => {
  const files = sourceFiles(CORE);

  it('has files to check', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files.map((file) => [relative(ROOT, file), file]))('%s reaches no platform library, even transitively', (_name, file) => {
    const offending = [...reachablePackages(file)].filter(([pkg]) => FORBIDDEN.some((pattern) => pattern.test(pkg)));
    expect(offending.map(([pkg, chain]) => `${pkg} via ${chain.join(' → ')}`)).toEqual([]);
  });

  it('core files import nothing outside src/core', () => {
    const outside = files.flatMap((file) =>
      specifiers(file)
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => resolve(dirname(file), specifier))
        .filter((target) => !target.startsWith(CORE))
        .map((target) => `${relative(ROOT, file)} → ${relative(ROOT, target)}`),
    );
    expect(outside).toEqual([]);
  });

  it('the checker would catch a violation', () => {
    const packages = reachablePackages(join(ROOT, 'src/agent-api/client.ts'));
    expect([...packages.keys()]).toContain('undici');
    expect([...reachablePackages(join(ROOT, 'src/store/postgres/postgres-store.ts')).keys()]).toContain('pg');
  });
});
