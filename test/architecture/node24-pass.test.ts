import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVitest, type Vitest } from 'vitest/node';
import { NODE_FOLDERS } from '../../vitest.node24.config.js';
import { ROOT } from '../helpers/spawn-cli.js';

/*
 * The Node 24 pass (vitest.node24.config.ts) is chosen by a rule, not a list of files: every test
 * under test/ but three kinds, and the unit tests of the src/ folders that rest on Node itself. These
 * checks hold the rule to what it promises, so that a folder renamed, a glob narrowed or a test moved
 * cannot quietly take a Node-facing test out of the pass.
 */

/** The test files a vitest config selects, relative to the repository, by project name. */
async function selected(config: string): Promise<{ vitest: Vitest; files: Map<string, string[]> }> {
  const vitest = await createVitest('test', { root: ROOT, config: join(ROOT, config), watch: false });
  const files = new Map<string, string[]>();
  for (const spec of await vitest.globTestSpecifications()) {
    const name = spec.project.name;
    files.set(name, [...(files.get(name) ?? []), relative(ROOT, spec.moduleId)].sort());
  }
  return { vitest, files };
}

let everyTest: Awaited<ReturnType<typeof selected>>;
let node24: Awaited<ReturnType<typeof selected>>;
let pass: string[];

beforeAll(async () => {
  everyTest = await selected('vitest.config.ts');
  node24 = await selected('vitest.node24.config.ts');
  pass = node24.files.get('node24') ?? [];
});
afterAll(async () => {
  await everyTest?.vitest.close();
  await node24?.vitest.close();
});

describe('the Node 24 pass', () => {
  it('is one project of tests that npm test runs in its unit and end-to-end group', () => {
    expect([...node24.files.keys()]).toEqual(['node24']);
    expect(pass.length).toBeGreaterThan(100);
    const unitAndE2e = new Set(everyTest.files.get('unit+e2e'));
    expect(pass.filter((file) => !unitAndE2e.has(file))).toEqual([]);
  });

  it('runs every test under test/ but the stress suites, the architecture checks and the browser tests', () => {
    const underTest = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
      .map((file) => join('test', file))
      .filter((file) => file.endsWith('.test.ts'));
    const expected = underTest.filter(
      (file) => !file.startsWith('test/stress/') && !file.startsWith('test/architecture/') && !file.endsWith('.browser.e2e.test.ts'),
    );
    expect(pass.filter((file) => file.startsWith('test/'))).toEqual(expected.sort());
  });

  it("takes a new surface's end-to-end tests and its fake's tests without their being named", () => {
    const [project] = node24.vitest.projects;
    expect(project?.matchesTestGlob(join(ROOT, 'test/made-up-surface/made-up-surface.e2e.test.ts'))).toBe(true);
    expect(project?.matchesTestGlob(join(ROOT, 'test/fakes/made-up-surface-api.test.ts'))).toBe(true);
    expect(project?.matchesTestGlob(join(ROOT, 'src/made-up-surface/parse-webhook.test.ts'))).toBe(false);
  });

  it('runs the unit tests of exactly the src/ folders that rest on Node, each of which has some', () => {
    const folders = new Set(pass.filter((file) => file.startsWith('src/')).map((file) => file.split('/')[1]));
    expect([...folders].sort()).toEqual([...NODE_FOLDERS].sort());
    expect(pass).toContain('src/store/postgres/replica-races.test.ts');
    expect(pass).not.toContain('src/core/title.test.ts');
  });

  it('is what npm run test:node24 runs', () => {
    const script = readFileSync(join(ROOT, 'scripts/test-node24.sh'), 'utf8');
    expect(script).toMatch(/vitest\.mjs run --config vitest\.node24\.config\.ts "\$@"/);
  });
});
