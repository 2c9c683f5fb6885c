import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { FakeLinearApi, FakeLinearIssue } from '../fakes/linear-api.js';
import { LINEAR_IDS } from '../fixtures/linear/index.js';
import { commentOn, labelAdded, newIssue, startFakeLinearApi, startLinearBridge, until, type LinearBridge } from './linear-harness.js';
import { useTrackerWorld } from '../helpers/tracker-world.js';

/*
 * Follow-ups in Linear (the handle rule, `linear.followups: mentions`): an `@agent …` comment
 * on an issue with a run is a follow-up that carries, quoted, the human comments written since the
 * agent's previous turn (the run's start, or the latest earlier handle comment) — and only those.
 * Real SDK against the fake GraphQL API, signed deliveries, the emulator.
 */

const API_KEY = 'linear-followup-context-run-api-key';
const { agent, bug } = LINEAR_IDS.labels;
interface Person {
  id: string;
  name: string;
  displayName: string;
}
const ADA: Person = { id: LINEAR_IDS.user.id, name: LINEAR_IDS.user.name, displayName: 'ada' };
const GRACE: Person = { id: LINEAR_IDS.otherUser.id, name: LINEAR_IDS.otherUser.name, displayName: 'grace' };
const YAML = `tracker:
  interval: 1s
linear:
  labels:
    agent: { config: { environment_id: env_web } }
  teams: [ENG]
`;
/** With `followups: all`: every comment is a follow-up, and a burst goes as one. */
const YAML_ALL = YAML.replace('linear:\n', 'linear:\n  followups: all\n');
const world = useTrackerWorld({
  apiKey: API_KEY,
  startFake: () => startFakeLinearApi({ authorization: 'lin_api_e2e_0123456789abcdef', labels: [agent, bug] }),
  startBridge: (fake, emulator) => startLinearBridge({ fake, emulator, yaml: YAML }),
});
let fake: FakeLinearApi, emulator: RunningEmulator, bridge: LinearBridge;
let bridgeAll: LinearBridge;

beforeAll(async () => {
  ({ fake, emulator, bridge } = world);
  bridgeAll = await startLinearBridge({ fake, emulator: { baseUrl: emulator.baseUrl, apiKey: API_KEY }, yaml: YAML_ALL });
});
afterAll(async () => {
  await bridgeAll.service.stop();
});

/** A comment a person writes: Linear has it (the issue's comments), and the bridge hears its webhook. Its id. */
async function say(issue: FakeLinearIssue, body: string, who: Person = ADA, to: LinearBridge = bridge): Promise<string> {
  const comment = fake.addComment(issue.identifier, body, who);
  const user = {
    id: who.id,
    name: who.name,
    email: `${who.displayName}@example.com`,
    avatarUrl: null,
    url: `https://linear.app/acme/profiles/${who.displayName}`,
  };
  expect((await to.deliver(commentOn(issue, body, { id: comment.id, userId: who.id, user }))).status).toBe(200);
  return comment.id;
}

/** The quoted block of a follow-up, without its marker lines. */
function quoted(message: string): string[] {
  const start = message.indexOf('--- Linear comments since your last turn');
  expect(start).toBeGreaterThan(-1);
  return message.slice(start).split('\n').slice(1, message.slice(start).split('\n').indexOf('--- end of Linear comments ---'));
}

describe('linear.followups: mentions — everything since the last turn', () => {
  it('three plain comments then a handle comment → one follow-up quoting the three in order; the next one only what came after', async () => {
    const { issue, data } = newIssue(fake, 'Refactor the importer');
    await say(issue, 'before: this went with the start');
    expect((await bridge.deliver(labelAdded(agent, [bug], data))).status).toBe(200);
    const run = await until(() => emulator.engine.list({}).runs.find((item) => item.title?.startsWith(`${issue.identifier}:`)), 'the run');
    expect(run.prompt).toContain('before: this went with the start');
    // The start comment (ours) marks the agent's first turn on the issue.
    await until(() => fake.comments(issue.identifier).some((comment) => comment.user.id !== ADA.id), 'the start comment');

    await say(issue, 'first: keep the CSV path');
    await say(issue, 'second: mind the BOM', GRACE);
    await say(issue, 'third: no new deps');
    expect(emulator.engine.followups(run.run_id)).toHaveLength(0);
    await say(issue, '@agent please take these into account');
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the first follow-up');
    const first = emulator.engine.followups(run.run_id)[0]?.message ?? '';
    expect(first.startsWith('please take these into account')).toBe(true);
    expect(quoted(first)).toEqual(['[ada]', '> first: keep the CSV path', '[grace]', '> second: mind the BOM', '[ada]', '> third: no new deps']);
    expect(first).not.toContain('before: this went with the start');

    await say(issue, 'fourth: and the docs');
    await say(issue, '@agent one more');
    await until(() => emulator.engine.followups(run.run_id).length === 2, 'the second follow-up');
    const second = emulator.engine.followups(run.run_id)[1]?.message ?? '';
    expect(second.startsWith('one more')).toBe(true);
    expect(quoted(second)).toEqual(['[ada]', '> fourth: and the docs']);
  });

  it('a handle comment right after the previous turn carries nothing more', async () => {
    const { issue, data } = newIssue(fake, 'Speed up the export');
    await bridge.deliver(labelAdded(agent, [bug], data));
    const run = await until(() => emulator.engine.list({}).runs.find((item) => item.title?.startsWith(`${issue.identifier}:`)), 'the run');
    await until(() => fake.comments(issue.identifier).length > 0, 'the start comment');
    await say(issue, '@agent profile it first');
    await until(() => emulator.engine.followups(run.run_id).length === 1, 'the follow-up');
    const message = emulator.engine.followups(run.run_id)[0]?.message ?? '';
    expect(message.startsWith('profile it first')).toBe(true);
    expect(message).not.toContain('Linear comments since your last turn');
  });
});

describe('linear.followups: all — a burst of comments goes as one follow-up', () => {
  it('five comments in a row → every text reaches the run once, in order, in at most two follow-ups, each acknowledged', async () => {
    const { issue, data } = newIssue(fake, 'Tidy the importer');
    await bridgeAll.deliver(labelAdded(agent, [bug], data));
    const run = await until(() => emulator.engine.list({}).runs.find((item) => item.title?.startsWith(`${issue.identifier}:`)), 'the run');
    const texts = ['one: keep the CSV path', 'two: mind the BOM', 'three: no new deps', 'four: and the docs', 'five: that is all'];
    const ids: string[] = [];
    for (const text of texts) ids.push(await say(issue, text, ADA, bridgeAll));
    const sent = () => emulator.engine.followups(run.run_id).map((entry) => entry.message);
    await until(() => texts.every((text) => sent().some((message) => message.includes(text))), 'every comment at the run');
    expect(sent().join('\n\n').split('\n\n')).toEqual(texts);
    expect(sent().length).toBeLessThanOrEqual(2);
    await until(() => ids.every((id) => fake.reactions.some((reaction) => reaction.commentId === id)), 'a reaction on every comment');
  });
});
