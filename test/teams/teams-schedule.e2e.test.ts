import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installUpdate, TEAMS_IDS } from '../fixtures/teams/index.js';
import { cardText, startTeamsWorld, type TeamsWorld } from './teams-harness.js';

/*
 * A schedule that reports to a Teams channel (`notify.teams_channel`): each run gets a thread of its
 * own there, its card edited as the run moves.
 */

let world: TeamsWorld;
beforeAll(async () => {
  const yaml = `tracker:\n  interval: 1s\nschedules:\n  - { name: nightly-deps, cron: "*/2 * * * * *", prompt: "Update the dependencies", notify: { teams_channel: "${TEAMS_IDS.otherChannel}" } }\n`;
  world = await startTeamsWorld({ yaml });
  await world.send(installUpdate({ scope: 'team' }));
});
afterAll(() => world.stop());

describe('a schedule reporting to a Teams channel', () => {
  it('posts each run’s card at the channel, starting its thread, and edits it there', async () => {
    const card = await world.bridge.until(
      () => world.teams.posted.find((post) => post.conversationId === TEAMS_IDS.otherChannel),
      'the card at the channel',
      15_000,
    );
    expect(cardText(card.versions[0]!)).toContain('Update the dependencies');
    const run = await world.bridge.until(
      () => world.fakes.emulator.engine.list({}).runs.find((candidate) => (candidate.agent_config as { name?: string } | undefined)?.name === 'nightly-deps'),
      'the schedule’s run',
    );
    world.fakes.emulator.engine.drive(run.run_id, 'SUCCEEDED');
    const thread = await world.bridge.until(
      () =>
        world.teams.posted.find((post) => post.conversationId.startsWith(`${TEAMS_IDS.otherChannel};messageid=`) && cardText(post.activity).includes('Done')),
      'the end in a thread of the channel',
      15_000,
    );
    expect(thread.conversationId.startsWith(`${TEAMS_IDS.otherChannel};messageid=`)).toBe(true);
  });
});
