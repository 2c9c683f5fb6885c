import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLinearApi, type FakeLinearApi } from '../fakes/linear-api.js';
import { runCli, tempDir } from '../helpers/spawn-cli.js';

/** `config check` asks the (fake) Linear workspace whether linear.states names existing workflow states. */

const STATES = [
  { id: 's1', name: 'Todo', type: 'unstarted' },
  { id: 's2', name: 'In Progress', type: 'started' },
  { id: 's3', name: 'In Review', type: 'started' },
];
let fake: FakeLinearApi;

beforeAll(async () => {
  fake = await startFakeLinearApi({
    issues: [
      { id: 'i1', identifier: 'ENG-1', title: 't', url: 'u', team: { id: 'team-eng', key: 'ENG' } },
      { id: 'i2', identifier: 'OPS-1', title: 't', url: 'u', team: { id: 'team-ops', key: 'OPS' } },
    ],
    states: { 'team-eng': STATES, 'team-ops': STATES.slice(0, 2) },
  });
});
afterAll(async () => {
  await fake.close();
});

function check(yaml: string, args: string[] = [], url = fake.url) {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'agent-bridge.yml'), yaml);
  return runCli(['config', 'check', ...args], {
    cwd,
    env: { LINEAR_API_KEY: 'lin_api_check', LINEAR_WEBHOOK_SECRET: 'whsec-check-0123456789', LINEAR_API_URL: url },
  });
}

describe('config check against Linear', () => {
  it('states every team has: valid, and the summary says what was checked', async () => {
    const result = await check('linear:\n  states: { started: in progress }\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Linear workflow states: linear.states.started "in progress": 2 of 2 team(s)');
  });

  it('a state some teams lack is a warning naming them', async () => {
    const result = await check('linear:\n  states: { pull_request: In Review }\n');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('warning: linear.states.pull_request: team(s) OPS have no state "In Review"');
  });

  it.each([
    ['a state no team has', 'linear:\n  states: { pull_request: In Reviw }\n', 'linear.states.pull_request: no team has a workflow state named "In Reviw"'],
    [
      'a team key Linear does not know',
      'linear:\n  teams: [ENG, WEB]\n  states: { started: In Progress }\n',
      'linear.teams: Linear has no team with the key "WEB"',
    ],
  ])('%s: exit 2 naming the key', async (_what, yaml, message) => {
    const result = await check(yaml);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('unreachable Linear is said, not failed; --offline does not ask', async () => {
    const unreachable = await check('linear:\n  states: { started: In Progress }\n', [], 'http://127.0.0.1:9/graphql');
    expect(unreachable.code).toBe(0);
    expect(unreachable.stdout).toContain('not checked, Linear did not answer');
    const before = fake.callsTo('AgentBridgeTeams').length;
    const offline = await check('linear:\n  states: { started: Nope }\n', ['--offline']);
    expect(offline.code).toBe(0);
    expect(fake.callsTo('AgentBridgeTeams')).toHaveLength(before);
  });
});
