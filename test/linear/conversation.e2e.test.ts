import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { FakeLinearApi } from '../fakes/linear-api.js';
import { LINEAR_IDS } from '../fixtures/linear/index.js';
import { commentOn, labelAdded, newIssue, quiet, startFakeLinearApi, startLinearBridge, until, type LinearBridge } from './linear-harness.js';
import { useTrackerWorld } from '../helpers/tracker-world.js';

/*
 * Talking to a run in Linear, end to end (signed deliveries, the real SDK against the fake GraphQL API, the
 * emulator): options in a request checked against the label route's `overrides`, and `announce`.
 */

const API_KEY = 'linear-conversation-run-api-key';
const { agent, agentWeb, bug } = LINEAR_IDS.labels;
const YAML = `tracker:
  interval: 1s
linear:
  labels:
    agent: { config: { environment_id: env_web }, overrides: { model_id: "*" }, announce: all }
    agent-web: {}
  teams: [ENG]
`;
const world = useTrackerWorld({
  apiKey: API_KEY,
  startFake: () => startFakeLinearApi({ authorization: 'lin_api_e2e_0123456789abcdef', labels: [agent, agentWeb, bug] }),
  startBridge: (fake, emulator) => startLinearBridge({ fake, emulator, yaml: YAML }),
  resetEach: true,
});
let fake: FakeLinearApi, emulator: RunningEmulator, bridge: LinearBridge;
beforeAll(() => {
  ({ fake, emulator, bridge } = world);
});

const runsFor = (identifier: string) => emulator.engine.list({}).runs.filter((run) => run.title?.startsWith(`${identifier}:`));
const bodies = (identifier: string) => fake.comments(identifier).map((comment) => comment.body);

describe('options in a Linear request', () => {
  it('options opening the description set the run config, leave the prompt and show in the start comment', async () => {
    const { issue, data } = newIssue(fake, 'Speed up the importer');
    expect((await bridge.deliver(labelAdded(agent, [bug], { ...data, description: '[model=model-z]\nProfile it first.' }))).status).toBe(200);
    const run = await until(() => runsFor(issue.identifier)[0], 'the run');
    expect(run.agent_config).toMatchObject({ environment_id: 'env_web', model_id: 'model-z' });
    expect(run.prompt).not.toContain('[model=');
    expect(run.prompt).toContain('Profile it first.');
    await until(() => bodies(issue.identifier).some((body) => body.includes('Options: `model=model-z`')), 'the options in the start comment');
  });

  it('an option the label route does not allow starts nothing and says what is allowed', async () => {
    const { issue, data } = newIssue(fake, 'Try another environment');
    await bridge.deliver(labelAdded(agentWeb, [bug], { ...data, description: '[env=env_prod] go' }));
    await until(() => bodies(issue.identifier).some((body) => /env=env\\?_prod is not allowed here; no options are allowed here/.test(body)), 'the refusal');
    await quiet(bridge.service);
    expect(runsFor(issue.identifier)).toHaveLength(0);
  });

  it('"@agent new [model=…] …" on an issue with a run carries its options too', async () => {
    const { issue, data } = newIssue(fake, 'Two tries');
    await bridge.deliver(labelAdded(agent, [bug], data));
    const first = await until(() => runsFor(issue.identifier)[0], 'the first run');
    emulator.engine.drive(first.run_id, 'SUCCEEDED');
    await until(() => bodies(issue.identifier).some((body) => /succeeded|done/i.test(body) && !body.includes('State:')), 'the end comment');
    await bridge.deliver(commentOn(issue, '@agent new [model=model-q] try the other approach'));
    // The comment route has no label: the defaults apply, and they allow no options.
    await until(() => bodies(issue.identifier).some((body) => body.includes('model=model-q is not allowed here')), 'the refusal');
    expect(runsFor(issue.identifier)).toHaveLength(1);
  });
});

describe('announce in Linear', () => {
  it('announce: all → a new comment for every state', async () => {
    const { issue, data } = newIssue(fake, 'Chatty run');
    await bridge.deliver(labelAdded(agent, [bug], data));
    const run = await until(() => runsFor(issue.identifier)[0], 'the run');
    await until(() => bodies(issue.identifier).length === 1, 'the start comment');
    emulator.engine.drive(run.run_id, 'INPROGRESS');
    await until(() => bodies(issue.identifier).length === 2, 'the INPROGRESS comment');
    emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await until(() => bodies(issue.identifier).length === 3, 'the SUCCEEDED comment');
    await quiet(bridge.service);
    expect(bodies(issue.identifier)).toHaveLength(3);
  });
});

describe('files in a Linear comment', () => {
  it('a handle comment with an upload reaches the run listing the file and its link', async () => {
    const { issue, data } = newIssue(fake, 'Look at the trace');
    await bridge.deliver(labelAdded(agent, [bug], data));
    const run = await until(() => runsFor(issue.identifier)[0], 'the run');
    await bridge.deliver(commentOn(issue, '@agent here is the trace [trace.log](https://uploads.linear.app/org1/file1/trace.log)'));
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the follow-up');
    expect(emulator.engine.followups(run.run_id)[0]?.message).toContain('- trace.log (text/plain): https://uploads.linear.app/org1/file1/trace.log');
  });
});
