import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GITLAB_IDS, issueLabelled, type Person } from '../fixtures/gitlab/index.js';
import { startGitlabWorld, type GitlabWorld } from './gitlab-harness.js';

/*
 * GitLab people as the bridge's people: a GitLab user whose confirmed email (their public email, which
 * GitLab lets them choose only among their verified ones) is a Slack user's is that person, found the
 * first time they ask and kept; whoever shows no email is a person nobody knows.
 */

const PROJECT = GITLAB_IDS.project.path;
const { alice, bob } = GITLAB_IDS.people;
const GRACE = 'U0GRACE01';

const YAML = `tracker:
  interval: 1s
people:
  attribution: personal_if_connected
gitlab:
  projects:
    acme/web: {}
  labels:
    agent: { config: { environment_id: env_label } }
`;

let world: GitlabWorld;
beforeAll(async () => {
  world = await startGitlabWorld('token', {
    yaml: YAML,
    env: { AGENT_BRIDGE_SECRET: 'gitlab-people-secret-0123456789abcdef0123' },
    slackUsers: { [GRACE]: { real_name: 'Grace Hopper', email: 'grace@example.com', email_confirmed: true } },
  });
  world.gitlab.addUser({ ...alice, public_email: 'Grace@Example.com' });
});
afterAll(() => world?.stop());

let next = 300;
async function labelledBy(user: Person) {
  const iid = (next += 1);
  world.gitlab.addIssue({ project: PROJECT, iid, title: 'Tidy the changelog', description: '', labels: [], state: 'opened', author: user });
  expect((await world.deliver(issueLabelled(iid, 'agent', [], { user, web: world.gitlab.url }))).body).toMatchObject({ outcome: 'stored' });
  const run = await world.bridge.until(() => world.fakes.emulator.engine.list({}).runs.find((one) => one.title?.startsWith(`${PROJECT}#${iid}:`)), 'the run');
  return world.bridge.until(() => world.bridge.service.store.trackedRuns.get(run.run_id), 'the tracked run');
}

describe('GitLab people', () => {
  it('a GitLab user with the public email of a Slack user is that person: the link is found once, kept, and the run is theirs', async () => {
    const tracked = await labelledBy(alice);
    expect(tracked.askedBy).toBe(GRACE);
    expect(await world.bridge.service.store.personLinks.get('gitlab', alice.username)).toMatchObject({ personId: GRACE, how: 'email' });
    const asked = world.gitlab.callsTo('listUsers').length;
    await labelledBy(alice);
    // Kept: GitLab is not asked again.
    expect(world.gitlab.callsTo('listUsers')).toHaveLength(asked);
  });

  it('a GitLab user who shows no email is linked to nobody: the run is asked for by their GitLab name', async () => {
    const tracked = await labelledBy(bob);
    expect(tracked.askedBy).not.toBe(GRACE);
    expect(await world.bridge.service.store.personLinks.get('gitlab', bob.username)).toBeUndefined();
  });
});
