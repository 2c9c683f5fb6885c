import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import type { FakeLinearApi } from '../fakes/linear-api.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { LINEAR_IDS } from '../fixtures/linear/index.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { LINEAR_KEY, labelAdded, newIssue, quiet, startFakeLinearApi } from '../linear/linear-harness.js';
import { type SlackBridge, startSlackBridge } from '../helpers/slack-bridge.js';

/*
 * One run per issue also when two requests about it arrive at the same moment (a second
 * binding of the same issue while a run is active joins that run): found by the crash suite with two
 * places. Two Slack mentions naming one issue, or a mention and the issue's trigger label, used to be
 * worked by two intake workers at once, each finding no run and starting one. The real service (its
 * intake workers run concurrently), the fake Slack and Linear APIs, the emulator holding runs active.
 */

const { agent, bug } = LINEAR_IDS.labels;

let bridge: SlackBridge;
let slack: FakeSlackApi, fake: FakeLinearApi, emulator: RunningEmulator, service: RunningService;

beforeAll(async () => {
  fake = await startFakeLinearApi({ authorization: LINEAR_KEY, labels: [agent, bug] });
  bridge = await startSlackBridge({ linear: fake, yaml: `tracker:\n  interval: 1s\nslack:\n  link_linear_issues: true\nlinear:\n  labels:\n    agent: {}\n` });
  ({ slack, emulator, service } = bridge);
});
afterAll(async () => {
  await bridge?.stop();
  await fake.close();
});

const mention = (channel: string, text: string) => bridge.mention(text, { channel, user: SLACK_IDS.user });

async function labelled(data: Record<string, unknown>): Promise<void> {
  expect(await bridge.deliverLinear(labelAdded(agent, [bug], data))).toBe(200);
}

const runsOf = (identifier: string) => emulator.engine.list({}).runs.filter((run) => run.title?.startsWith(`${identifier}:`));
const said = (ts: string) => JSON.stringify(slack.callsTo('chat.postMessage').filter((call) => call.args['thread_ts'] === ts));

describe('two requests about one issue at the same moment start one run', () => {
  it.each([1, 2, 3])('two mentions naming the issue (round %i): one run, the other thread joins it and is told which', async () => {
    const { issue } = newIssue(fake, 'Flaky checkout');
    const [first, second] = await Promise.all([mention('C0SAMEISS1', `${issue.identifier} fix it`), mention('C0SAMEISS2', `${issue.identifier} also this`)]);
    await quiet(service);
    const runs = runsOf(issue.identifier);
    expect(runs).toHaveLength(1);
    const runId = runs[0]!.run_id;
    // One thread started the run, the other joined it: its request reached the run as a follow-up.
    const told = [first, second].filter((ts) => said(ts).includes(`already has an active run (${runId})`));
    expect(told).toHaveLength(1);
    const joinedText = told[0] === first ? 'fix it' : 'also this';
    expect(
      emulator.engine
        .followups(runId)
        .map((followup) => followup.message)
        .join('\n'),
    ).toContain(joinedText);
  });

  it.each([1, 2, 3])('a mention naming the issue and its label (round %i): one run, and the other request is told which', async () => {
    const { issue, data } = newIssue(fake, 'Slow search');
    const [ts] = await Promise.all([mention('C0SAMEISS1', `${issue.identifier} make it fast`), labelled(data)]);
    await quiet(service);
    const runs = runsOf(issue.identifier);
    expect(runs).toHaveLength(1);
    const runId = runs[0]!.run_id;
    // Whichever came second: the mention joins the label's run, or the label is told the mention's run is active.
    const joined = said(ts).includes(`already has an active run (${runId})`);
    // Linear's comments escape Markdown (the run id's underscore is written `\_`): read them as people do.
    const refused = fake.comments(issue.identifier).some((comment) => comment.body.replace(/\\(.)/g, '$1').includes(`run ${runId} is still active`));
    expect(joined !== refused, `joined: ${joined}, label refused: ${refused}`).toBe(true);
  });
});
