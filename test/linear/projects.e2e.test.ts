import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { FakeLinearApi } from '../fakes/linear-api.js';
import { FIXTURE_PROJECTS, LINEAR_IDS, inProject, issueCreated, projectChanged } from '../fixtures/linear/index.js';
import { newIssue, quiet, startFakeLinearApi, startLinearBridge, until, type LinearBridge } from './linear-harness.js';
import { useTrackerWorld } from '../helpers/tracker-world.js';

/*
 * A Linear route that matches by project, end to end: signed deliveries to the
 * running service, the real Linear SDK against the fake GraphQL API, the emulator as the run API.
 * The `web` route lists the Checkout project by name; `agent` lists the Docs project by id.
 */

const API_KEY = 'linear-projects-run-api-key';
const { checkout, docs } = FIXTURE_PROJECTS;
const YAML = `tracker:
  interval: 1s
linear:
  labels:
    agent: { projects: [${docs.id}] }
    web: { config: { environment_id: env_web, name: web }, projects: [checkout revamp] }
`;
const world = useTrackerWorld({
  apiKey: API_KEY,
  startFake: () => startFakeLinearApi({ authorization: 'lin_api_e2e_0123456789abcdef', labels: [LINEAR_IDS.labels.agent] }),
  startBridge: (fake, emulator) => startLinearBridge({ fake, emulator, yaml: YAML }),
});
let fake: FakeLinearApi, emulator: RunningEmulator, bridge: LinearBridge;
beforeAll(() => {
  ({ fake, emulator, bridge } = world);
});

const runsFor = (identifier: string) => emulator.engine.list({}).runs.filter((run) => run.title?.startsWith(`${identifier}:`));

describe('a route that matches by project', () => {
  it('an issue moved into the project starts one run under the route; re-deliveries start nothing; leaving the project stops nothing', async () => {
    const { issue, data } = newIssue(fake, 'Speed up the checkout page');
    const moved = projectChanged(null, checkout, { ...data, updatedAt: '2026-03-04T10:00:00.000Z' });
    expect((await bridge.deliver(moved)).body['outcome']).toBe('stored');
    const run = await until(() => runsFor(issue.identifier)[0], 'the run');
    expect(run.agent_config).toMatchObject({ environment_id: 'env_web', name: 'web' });
    expect(run.prompt).toContain(`Work on the Linear issue ${issue.identifier}: Speed up the checkout page`);
    await until(() => fake.comments(issue.identifier).some((comment) => comment.body.includes(run.run_id)), 'the start comment with the run id');

    // The same move again, under the same delivery id or a new one: nothing new.
    expect((await bridge.deliver(moved, { deliveryId: 'project-delivery-1' })).body['outcome']).not.toBe('stored');
    expect((await bridge.deliver({ ...moved, webhookTimestamp: Date.now() })).body['outcome']).not.toBe('stored');
    // Out of the project and back in while the run works: no cancel, no second run.
    expect((await bridge.deliver(projectChanged(checkout, null, { ...data, updatedAt: '2026-03-04T10:05:00.000Z' }))).body['outcome']).toBe('ignored');
    expect((await bridge.deliver(projectChanged(null, checkout, { ...data, updatedAt: '2026-03-04T10:06:00.000Z' }))).body['outcome']).toBe('ignored');
    await quiet(bridge.service);
    expect(runsFor(issue.identifier)).toHaveLength(1);
    expect(emulator.engine.get(run.run_id)?.state).not.toBe('CANCELLED');
    expect(fake.comments(issue.identifier)).toHaveLength(1);
  });

  it('an issue created in a project listed by id starts one run; one created in another project starts nothing', async () => {
    const { issue, data } = newIssue(fake, 'Document the webhooks');
    expect((await bridge.deliver(issueCreated({ ...data, labels: [], ...inProject(docs) }))).body['outcome']).toBe('stored');
    const run = await until(() => runsFor(issue.identifier)[0], 'the run');
    expect(run.agent_config).toMatchObject({ name: 'linear' });

    const other = newIssue(fake, 'Unrelated');
    const elsewhere = issueCreated({ ...other.data, labels: [], ...inProject({ id: 'p-ops', name: 'Ops', url: 'https://linear.app/acme/project/ops' }) });
    expect((await bridge.deliver(elsewhere)).body['outcome']).toBe('ignored');
    expect(runsFor(other.issue.identifier)).toEqual([]);
  });
});
