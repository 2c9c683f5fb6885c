import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelMention, TEAMS_IDS, TEAMS_PEOPLE } from '../fixtures/teams/index.js';
import { cardText, startTeamsWorld, type TeamsWorld } from './teams-harness.js';

/*
 * What Teams asks of a bot and what a person's limits do there: the connector's 429 answered with its
 * Retry-After, a post whose answer was lost, and a limit that refuses a second run privately.
 */

let world: TeamsWorld;
beforeAll(async () => {
  world = await startTeamsWorld({ yaml: 'tracker:\n  interval: 1s\nlimits:\n  per_person: { concurrent: 1 }\n' });
});
afterAll(() => world.stop());

const engine = () => world.fakes.emulator.engine;
const postsIn = (conversationId: string) => world.teams.posted.filter((post) => post.conversationId === conversationId);
const threadOf = (mention: { id?: string }) => `${TEAMS_IDS.channel};messageid=${mention.id}`;

describe('the connector’s limits', () => {
  it('a 429 with Retry-After is waited out: the card arrives once', async () => {
    world.teams.failNext({ status: 429, retryAfter: 1, method: 'POST', operation: '/v3/conversations/*/activities' });
    const mention = channelMention({ text: 'rename the exporter flag', from: TEAMS_PEOPLE.grace });
    await world.send(mention);
    const card = await world.bridge.until(() => postsIn(threadOf(mention))[0], 'the card after the 429', 20_000);
    expect(cardText(card.versions[0]!)).toContain('Received');
    expect(world.teams.connectorCalls('POST', '/v3/conversations/*/activities').filter((call) => call.status === 429)).toHaveLength(1);
    expect(postsIn(threadOf(mention))).toHaveLength(1);
    const run = await world.bridge.until(
      () =>
        engine()
          .list({})
          .runs.find((candidate) => candidate.prompt?.includes('rename the exporter flag')),
      'the run',
    );
    engine().drive(run.run_id, 'SUCCEEDED');
    await world.bridge.until(() => postsIn(threadOf(mention)).some((post) => cardText(post.activity).includes('Done')), 'the end');
  });

  it('a post that landed but whose answer was lost is posted again (the connector cannot be asked), and every later edit goes to the one card the bridge knows', async () => {
    world.teams.failNext({ status: 502, land: true, method: 'POST', operation: '/v3/conversations/*/activities' });
    const mention = channelMention({ text: 'prune the stale feature flags', from: TEAMS_PEOPLE.grace });
    await world.send(mention);
    const run = await world.bridge.until(
      () =>
        engine()
          .list({})
          .runs.find((candidate) => candidate.prompt?.includes('prune the stale feature flags')),
      'the run',
    );
    await world.bridge.until(() => postsIn(threadOf(mention)).length === 2, 'the card posted again', 20_000);
    engine().drive(run.run_id, 'INPROGRESS');
    const [lost, known] = postsIn(threadOf(mention));
    await world.bridge.until(() => cardText(known!.activity).includes('In progress'), 'the known card edited');
    engine().drive(run.run_id, 'SUCCEEDED');
    await world.bridge.until(() => postsIn(threadOf(mention)).some((post) => cardText(post.activity).includes('Done')), 'the end');
    expect(lost!.versions).toHaveLength(1);
    expect(postsIn(threadOf(mention))).toHaveLength(3);
  });
});

describe('limits count Teams people', () => {
  it('a second mention while the first run works starts nothing: the asker is told privately in their 1:1 chat, the thread’s card says why', async () => {
    const first = channelMention({ text: 'upgrade the ORM', from: TEAMS_PEOPLE.ada });
    await world.send(first);
    const run = await world.bridge.until(
      () =>
        engine()
          .list({})
          .runs.find((candidate) => candidate.prompt?.includes('upgrade the ORM')),
      'the first run',
    );
    engine().drive(run.run_id, 'INPROGRESS');
    await world.bridge.until(
      async () => (await world.bridge.service.store.trackedRuns.get(run.run_id))?.state === 'INPROGRESS',
      'the tracker seeing INPROGRESS',
    );

    const second = channelMention({ text: 'and the test runner', from: TEAMS_PEOPLE.ada });
    await world.send(second);
    const told = await world.bridge.until(
      () => world.teams.posted.find((post) => post.conversationId.startsWith('a:') && cardText(post.activity).includes('limits.per_person.concurrent')),
      'the private notice',
    );
    expect(told.conversationId).toBe(`a:1personal-${TEAMS_PEOPLE.ada.aadObjectId}`);
    await world.bridge.until(
      () => postsIn(threadOf(second)).some((post) => cardText(post.activity).includes('limit')),
      'the second thread told why nothing started',
    );
    expect(
      engine()
        .list({})
        .runs.filter((candidate) => candidate.prompt?.includes('and the test runner')),
    ).toHaveLength(0);
  });
});
