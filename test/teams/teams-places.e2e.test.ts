import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLinearApi, type FakeLinearApi } from '../fakes/linear-api.js';
import { LINEAR_IDS } from '../fixtures/linear/index.js';
import { cardAction, channelMention, installUpdate, personalMessage, threadReply, TEAMS_IDS, TEAMS_PEOPLE } from '../fixtures/teams/index.js';
import { LINEAR_KEY, labelAdded, newIssue } from '../linear/linear-harness.js';
import { cardActions, cardText, startTeamsWorld, type TeamsWorld } from './teams-harness.js';

/*
 * Teams as every place a run can have: the companion thread of a Linear route (`teams_channel`), the
 * place of an approval whose buttons only its approvers may use, and the people a Linear user is
 * linked to by the roster's email.
 */

const OTHER = TEAMS_IDS.otherChannel;
const YAML = [
  'tracker:',
  '  interval: 1s',
  // Who asked decides whose key a run uses: a Linear user is looked up as a person.
  'people:',
  '  attribution: personal_if_connected',
  'linear:',
  '  labels:',
  `    agent: { config: { name: web }, teams_channel: "${TEAMS_IDS.channel}" }`,
  'teams:',
  '  channels:',
  `    "${OTHER}": { approval: { approvers: [teams:${TEAMS_PEOPLE.grace.aadObjectId}] } }`,
  '',
].join('\n');

let linear: FakeLinearApi;
let world: TeamsWorld;
beforeAll(async () => {
  linear = await startFakeLinearApi({ authorization: LINEAR_KEY, labels: [LINEAR_IDS.labels.agent, LINEAR_IDS.labels.bug], users: [LINEAR_IDS.otherUser] });
  world = await startTeamsWorld({
    yaml: YAML,
    linear,
    emails: { grace: LINEAR_IDS.otherUser.email },
    env: { AGENT_BRIDGE_SECRET: 'teams-places-people-secret-0123456789abcdef' },
  });
  // Installed in the team: Teams says so, through the service URL its places answer at.
  expect((await world.send(installUpdate({ scope: 'team' }))).json).toMatchObject({ outcome: 'ignored' });
});
afterAll(async () => {
  await world.stop();
  await linear.close();
});

/** Grace's 1:1 chat with the bot, as her first message there names it. */
const GRACE_CHAT = 'a:1GraceChatWithTheBot-0123456789abcdefghijklmnopqrstuvwxyz';

const engine = () => world.fakes.emulator.engine;
const postsIn = (conversationId: string) => world.teams.posted.filter((post) => post.conversationId === conversationId);

describe('a Linear route with teams_channel', () => {
  it('gives the run a new thread in the channel whose card follows it, and a reply there steers the run', async () => {
    const { issue, data } = newIssue(linear, 'Fix the invoice rounding');
    expect(await world.bridge.deliverLinear(labelAdded(LINEAR_IDS.labels.agent, [], data))).toBe(200);
    const run = await world.bridge.until(
      () =>
        engine()
          .list({})
          .runs.find((candidate) => candidate.title?.startsWith(`${issue.identifier}:`)),
      'the run',
    );
    // A post at the bare channel starts the thread: its id is the thread's root.
    const card = await world.bridge.until(() => postsIn(TEAMS_IDS.channel)[0], 'the card at the channel');
    expect(cardText(card.versions[0]!)).toContain(issue.identifier);
    const thread = `${TEAMS_IDS.channel};messageid=${card.id}`;

    engine().drive(run.run_id, 'INPROGRESS');
    await world.bridge.until(() => card.versions.some((version) => cardText(version).includes('In progress')), 'the card edited in the channel');

    const reply = threadReply({ rootId: card.id, text: 'round half to even, please' });
    expect((await world.send(reply)).status).toBe(200);
    await world.bridge.until(() => engine().followups(run.run_id).length > 0, 'the follow-up from Teams');
    expect(engine().followups(run.run_id)[0]?.message).toContain('round half to even, please');

    engine().drive(run.run_id, 'SUCCEEDED');
    await world.bridge.until(() => postsIn(thread).find((post) => cardText(post.activity).includes('Done')), 'the end in the Teams thread');
  });

  it('links the Linear user to the Teams person with the roster’s email once that person wrote to the bot', async () => {
    await world.send(personalMessage({ text: 'hello there', from: TEAMS_PEOPLE.grace, chat: GRACE_CHAT }));
    const run = await world.bridge.until(
      () =>
        engine()
          .list({})
          .runs.find((candidate) => candidate.prompt?.includes('hello there')),
      'Grace’s 1:1 run',
    );
    expect(run).toBeDefined();
    const { data } = newIssue(linear, 'Tidy the changelog');
    const { otherUser } = LINEAR_IDS;
    const byGrace = labelAdded(LINEAR_IDS.labels.agent, [], data, {
      actor: { id: otherUser.id, name: otherUser.name, email: otherUser.email, type: 'user', url: 'https://linear.app/x' },
    });
    expect(await world.bridge.deliverLinear(byGrace)).toBe(200);
    const link = await world.bridge.until(() => world.bridge.service.store.personLinks.get('linear', otherUser.id), 'the person link');
    expect(link).toMatchObject({ personId: `teams:${TEAMS_PEOPLE.grace.aadObjectId}`, how: 'email' });
  });
});

describe('approval on a Teams route', () => {
  it('holds the request, asks Grace with buttons in the thread and in her 1:1 chat (the one she wrote to the bot in); Mallory’s press is refused, Grace’s starts the run', async () => {
    const mention = channelMention({ channel: OTHER, text: 'drop the legacy billing tables', from: TEAMS_PEOPLE.ada });
    const thread = `${OTHER};messageid=${mention.id}`;
    await world.send(mention);
    const question = await world.bridge.until(
      () => postsIn(thread).find((post) => cardActions(post.activity).some((action) => action['verb'] === 'approve_run')),
      'the approval question in the thread',
    );
    await world.bridge.until(
      () => postsIn(GRACE_CHAT).find((post) => cardActions(post.activity).some((action) => action['verb'] === 'approve_run')),
      'the question in Grace’s 1:1 chat',
    );
    expect(
      engine()
        .list({})
        .runs.filter((run) => run.prompt?.includes('drop the legacy billing tables')),
    ).toHaveLength(0);
    const approvalId = (cardActions(question.activity).find((action) => action['verb'] === 'approve_run')?.['data'] as { approvalId: string }).approvalId;

    const press = (from: (typeof TEAMS_PEOPLE)[keyof typeof TEAMS_PEOPLE]) =>
      world.send(
        cardAction({
          cardActivityId: question.id,
          conversationId: thread,
          from,
          verb: 'approve_run',
          data: { approvalId },
          serviceUrl: world.teams.serviceUrl,
        }),
      );
    const refused = await press(TEAMS_PEOPLE.mallory);
    expect(refused.json).toMatchObject({ statusCode: 200, value: expect.stringContaining('Only the listed approvers') });
    expect(
      engine()
        .list({})
        .runs.filter((run) => run.prompt?.includes('drop the legacy billing tables')),
    ).toHaveLength(0);

    const approved = await press(TEAMS_PEOPLE.grace);
    expect(approved.json).toMatchObject({ statusCode: 200, value: 'You approved this request.' });
    await world.bridge.until(
      () =>
        engine()
          .list({})
          .runs.find((run) => run.prompt?.includes('drop the legacy billing tables')),
      'the approved run',
    );
  });
});
