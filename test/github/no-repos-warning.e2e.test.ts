import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../core/capturing-logger.js';
import { labeled } from '../fixtures/github/index.js';
import { startGithubWorld, type GithubWorld } from './github-harness.js';

/*
 * GitHub on with labels but no repository: the service starts (the owner may be adding repositories
 * next), says loudly at start that nothing on GitHub can start a run and what to add, and a label on
 * an issue indeed starts nothing.
 */

const logger = new CapturingLogger();
let world: GithubWorld;
beforeAll(async () => {
  world = await startGithubWorld({ yaml: 'github:\n  labels:\n    agent: {}\n', logger });
});
afterAll(async () => {
  await world.stop();
});

describe('GitHub on with no repository listed', () => {
  it('warns once at start, naming github.repos and what to add', () => {
    const warnings = logger.at('warn').filter((line) => line.msg?.startsWith('config warning: '));
    expect(warnings.map((line) => line.msg)).toEqual([
      expect.stringMatching(
        /^config warning: agent-bridge\.yml: github\.repos: GitHub is on, but no repository is listed: .*\(add the repositories to serve, e\.g\./,
      ),
    ]);
    expect(warnings[0]?.fields['where']).toBe('agent-bridge.yml: github.repos');
  });

  it('and a trigger label on an issue indeed starts nothing', async () => {
    const answer = await world.deliver('issues', labeled(7));
    expect(answer.status).toBe(200);
    // Ignored: nothing is stored, so no run can follow.
    expect(answer.body['outcome']).toBe('ignored');
  });
});
