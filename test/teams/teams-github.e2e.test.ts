import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTeams, type FakeTeams } from '../fakes/teams-api.js';
import { REPO, pullRequestClosed, reviewSubmitted } from '../fixtures/github/index.js';
import { channelMention, TEAMS_IDS } from '../fixtures/teams/index.js';
import { startGithubWorld, type GithubWorld } from '../github/github-harness.js';
import { cardText, TEAMS_SECRET, teamsEnv } from './teams-harness.js';

/*
 * A Teams run's pull request is one of its places, as a Slack run's is: a review on GitHub steers the
 * run, and the Teams thread hears who sent what kind of follow-up (never its text) and the merge.
 */

let teams: FakeTeams;
let world: GithubWorld;
beforeAll(async () => {
  teams = await startFakeTeams({ clientId: TEAMS_IDS.clientId, clientSecret: TEAMS_SECRET, tenantId: TEAMS_IDS.tenant });
  world = await startGithubWorld({
    env: teamsEnv(teams),
  });
});
afterAll(async () => {
  await world?.stop();
  await teams?.close();
});

describe('a Teams run’s pull request', () => {
  it('a review steers the run and the Teams thread is told who sent what, with a link, and the merge once', async () => {
    const mention = channelMention({ text: 'fix the login bug from Teams', serviceUrl: teams.serviceUrl });
    const thread = `${TEAMS_IDS.channel};messageid=${mention.id}`;
    expect((await teams.sendActivity(`${world.bridge.service.url}/teams/messages`, mention)).status).toBe(200);
    const engine = world.fakes.emulator.engine;
    const run = await world.bridge.until(
      () => engine.list({}).runs.find((candidate) => candidate.prompt?.includes('fix the login bug from Teams')),
      'the Teams run',
    );
    const pr = 970;
    world.github.addIssue({
      repo: REPO,
      number: pr,
      title: 'Fix the login',
      body: null,
      user: { login: 'agent-bridge[bot]', id: 9, type: 'Bot' },
      labels: [],
      state: 'open',
      pullRequest: true,
    });
    engine.drive(run.run_id, 'INPROGRESS', {
      artifacts: [{ artifact_type: 'PULL_REQUEST', data: { url: `https://github.com/${REPO}/pull/${pr}`, branch: 'fix' } }],
    });
    const place = `github:${REPO}#${pr}`;
    await world.bridge.until(async () => (await world.bridge.service.store.anchors.currentRun(place)) === run.run_id, 'the pull request bound to the run');

    expect((await world.deliver('pull_request_review', reviewSubmitted(pr, 'changes_requested', 'Please add a test', { id: 9001 }))).body['outcome']).toBe(
      'stored',
    );
    await world.bridge.until(() => engine.followups(run.run_id).some((followup) => followup.message.includes('> Please add a test')), 'the review follow-up');
    const heard = await world.bridge.until(
      () => teams.posted.find((post) => post.conversationId === thread && cardText(post.activity).includes('a review requesting changes')),
      'the Teams thread told of the review',
    );
    expect(cardText(heard.activity)).not.toContain('Please add a test');
    expect(JSON.stringify(heard.activity)).toContain(`https://github.com/${REPO}/pull/${pr}#pullrequestreview-9001`);

    expect((await world.deliver('pull_request', pullRequestClosed(pr, true))).status).toBe(200);
    await world.bridge.until(
      () => teams.posted.find((post) => post.conversationId === thread && cardText(post.activity).includes('was merged')),
      'the merge told in Teams',
    );
    expect(teams.posted.filter((post) => post.conversationId === thread && cardText(post.activity).includes('was merged'))).toHaveLength(1);
  });
});
