import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { tempDir } from '../../test/config/helpers.js';
import { loadConfig } from './load-config.js';
import { ROUTE_PARTS, SURFACE_SLICES } from './surface-slices.js';

/*
 * Each surface's configuration lives in its folder, its documentation in docs/configuration.md: the
 * page names every variable a registered surface declares, and its agent-bridge.yml lists each
 * surface's section with every key that section has, at its default.
 */
const page = readFileSync(fileURLToPath(new URL('../../docs/configuration.md', import.meta.url)), 'utf8');
const environment = page.split('\n## Environment\n')[1]?.split('\n## ')[0] ?? '';
const documentedYaml = page.split('\n## Configuration file')[1]?.split('```yaml\n')[1]?.split('```')[0] ?? '';
const documented = parse(documentedYaml) as Record<string, Record<string, unknown> | null>;

describe('docs/configuration.md and the surfaces’ config slices', () => {
  it('has its sections to check', () => {
    expect(environment).toContain('| variable |');
    expect(Object.keys(documented)).toContain('schedules');
  });

  it.each(SURFACE_SLICES.map((slice) => [slice.name, slice] as const))('names every variable %s declares in its Environment table', (_name, slice) => {
    const missing = slice.config.variables.filter(({ name }) => !environment.includes(`\`${name}\``)).map(({ name }) => name);
    expect(missing).toEqual([]);
  });

  it.each(SURFACE_SLICES.map((slice) => [slice.name, slice] as const))('lists every key of %s: in its agent-bridge.yml', (name, slice) => {
    const keys = Object.keys(slice.config.fileSection(ROUTE_PARTS).parse({}) as object);
    expect(Object.keys(documented[name] ?? {}).sort()).toEqual(keys.sort());
  });

  it('shows each surface’s section at its defaults', () => {
    const fromPage = loadConfig({ env: {}, cwd: tempDir({ 'agent-bridge.yml': documentedYaml }) }) as unknown as Record<string, unknown>;
    const unset = loadConfig({ env: {}, cwd: tempDir() }) as unknown as Record<string, unknown>;
    for (const { name } of SURFACE_SLICES) expect({ [name]: fromPage[name] }).toEqual({ [name]: unset[name] });
  });
});
