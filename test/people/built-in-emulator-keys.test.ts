import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentApiEndpoint } from '../../src/compose/integrations.js';
import { runsForKey } from '../../src/compose/people.js';
import { loadConfig } from '../../src/config/index.js';
import { checkKey } from '../../src/people/key-check.js';
import { CapturingLogger } from '../core/capturing-logger.js';

/**
 * `npm start` with no configuration runs the built-in emulator: a person trying personal keys there
 * (issue 20) gets their key accepted, as a real run API would accept a real key — while a configured
 * run API is still the one that decides.
 */
let cwd: string;
let endpoint: Awaited<ReturnType<typeof agentApiEndpoint>>;

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'agent-bridge-builtin-keys-'));
  const config = loadConfig({ cwd, env: { DATABASE_PATH: ':memory:' } });
  endpoint = await agentApiEndpoint(config, new CapturingLogger());
});
afterAll(async () => {
  await endpoint.emulator?.close();
  rmSync(cwd, { recursive: true, force: true });
});

describe('the built-in emulator and personal keys', () => {
  it('is the endpoint when no run API is configured', () => {
    expect(endpoint.emulator).toBeDefined();
    expect(endpoint.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  });

  it('accepts a personal key the console checks before storing it, and answers calls made with it', async () => {
    const personal = 'wk_personal_builtin_trial_9Z9Z';
    expect(await checkKey(runsForKey(endpoint.baseUrl), personal)).toBe('accepted');
    const client = runsForKey(endpoint.baseUrl)(personal);
    expect((await client.runs.listRuns({ limit: 1 })).runs).toEqual([]);
    await client.close();
  });
});
