import { join, relative } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn-cli.js';
import { sourceFiles, specifiers } from './import-graph.js';

const SRC = join(ROOT, 'src');
const TELEMETRY = join(SRC, 'telemetry');
const STATIC_IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/g;

/**
 * Tracing off loads nothing of OpenTelemetry: its packages are imported by `src/telemetry/` alone, and
 * that folder only by `import()` where the configuration says tracing is on (docs/observability.md).
 */
describe('OpenTelemetry is loaded only when tracing is on', () => {
  const files = sourceFiles(SRC);

  it('only src/telemetry/ imports @opentelemetry packages', () => {
    const outside = files
      .filter((file) => !file.startsWith(TELEMETRY))
      .flatMap((file) =>
        specifiers(file)
          .filter((specifier) => specifier.startsWith('@opentelemetry/'))
          .map((specifier) => `${relative(ROOT, file)} → ${specifier}`),
      );
    expect(outside).toEqual([]);
  });

  it('no file outside it imports src/telemetry/ statically', () => {
    const statically = files
      .filter((file) => !file.startsWith(TELEMETRY))
      .flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)]
          .map((match) => match[1] ?? '')
          .filter((specifier) => specifier.includes('/telemetry/'))
          .map((specifier) => `${relative(ROOT, file)} → ${specifier}`),
      );
    expect(statically).toEqual([]);
  });

  it('the serve command loads it by import()', () => {
    expect(specifiers(join(SRC, 'cli/serve-command.ts'))).toContain('../telemetry/start-tracing.js');
  });
});
