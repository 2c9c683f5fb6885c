import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receivedKey } from '../../src/core/ports/messages.js';
import { referenceLine } from '../../src/core/ports/triggers.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { startFakeLinearApi, type FakeLinearApi } from '../fakes/linear-api.js';
import { startFakeSlackApi, type FakeSlackApi } from '../fakes/slack-api.js';
import { CHANNELS } from './crash-burst-checks.js';
import { PlacesSnapshot, globalProblems, runProblems, type PlacesRun } from './crash-places-checks.js';

/*
 * The crash suite with two places passes only if its checks can fail: here the fakes are given by hand
 * what one run's two places should show, then a doubled and a missing announcement, and the checks
 * must name each (which place, what was announced, what was expected).
 */

let slack: FakeSlackApi;
let linear: FakeLinearApi;
let emulator: RunningEmulator;

beforeAll(async () => {
  slack = await startFakeSlackApi({ token: 'xoxb-checks' });
  linear = await startFakeLinearApi();
  emulator = await startEmulator({ apiKey: 'checks-key', port: 0, manual: true });
});
afterAll(async () => {
  await emulator.close();
  await linear.close();
  await slack.close();
});

const channel = CHANNELS[0]!;

async function slackPost(fields: { text: string; key: string; thread_ts?: string; blocks?: unknown[] }): Promise<string> {
  const body = new URLSearchParams({
    token: 'xoxb-checks',
    channel,
    text: fields.text,
    metadata: JSON.stringify({ event_type: 'agent_bridge', event_payload: { key: fields.key } }),
    ...(fields.thread_ts !== undefined && { thread_ts: fields.thread_ts }),
    ...(fields.blocks && { blocks: JSON.stringify(fields.blocks) }),
  });
  const answer = (await (await fetch(`${slack.url}chat.postMessage`, { method: 'POST', body })).json()) as { ts: string };
  return answer.ts;
}

async function comment(issueId: string, body: string): Promise<void> {
  const query = 'mutation createComment($input: CommentCreateInput!) { commentCreate(input: $input) { success } }';
  await fetch(linear.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables: { input: { id: randomUUID(), issueId, body } } }),
  });
}

/** A run asked for in Linear, ended SUCCEEDED after a BLOCKED, with both places showing exactly that. */
async function labelRunShownOnce(): Promise<{ run: PlacesRun; runId: string }> {
  const issue = { id: randomUUID(), identifier: 'ENG-9001', title: 'Checks', url: 'https://linear.app/acme/issue/ENG-9001', team: { id: 't', key: 'ENG' } };
  linear.addIssue(issue);
  const key = `linear:label:${issue.id}:label:2026-11-26T06:00:00.000Z`;
  const run: PlacesRun = {
    index: 0,
    asked: 'linear',
    outcome: 'block',
    issue,
    channel,
    key,
    reference: referenceLine(key),
    redelivered: false,
    acked: true,
    released: true,
  };
  const created = emulator.engine.createRun({ prompt: `Work on ENG-9001\n\n${run.reference}` });
  emulator.engine.drive(created.run_id, 'SUCCEEDED');
  const status = [{ type: 'section', text: { type: 'mrkdwn', text: `ENG-9001: Checks · Succeeded · ${created.run_id}` } }];
  const top = await slackPost({ text: 'ENG-9001: Checks', key: receivedKey(key, `slack:${channel}`), blocks: status });
  await slackPost({ text: '⏸ ENG-9001: Checks needs your input.', key: `run:${created.run_id}:3:slack:${channel}:announce`, thread_ts: top });
  await slackPost({ text: '✅ Done: ENG-9001: Checks', key: `run:${created.run_id}:4:slack:${channel}:announce`, thread_ts: top });
  await comment(issue.id, `**agent-bridge** · ENG-9001: Checks\n\nState: **SUCCEEDED**\nRun: \`${created.run_id}\``);
  await comment(issue.id, '⏸ ENG-9001: Checks needs your input.');
  await comment(issue.id, '✅ Done: ENG-9001: Checks');
  return { run, runId: created.run_id };
}

describe('the checks of the crash suite with two places', () => {
  it('find nothing wrong when each place shows each state once, then name a doubled and a missing announcement', async () => {
    const { run, runId } = await labelRunShownOnce();
    const books = { triggerRun: runId, destinations: [`linear:${run.issue.id}`, `slack:${channel}`] };
    const look = () => new PlacesSnapshot(slack, linear, emulator, CHANNELS);
    expect(runProblems(look(), run, books)).toEqual([]);
    expect(globalProblems(look(), [run])).toEqual([]);
    expect(look().settled(run)).toBe(true);

    // The end announced twice in Slack (a second key), and once more on the issue.
    const top = look().slackPlace(run).statusMessages[0]!.ts;
    await slackPost({ text: '✅ Done: ENG-9001: Checks', key: `run:${runId}:5:slack:${channel}:announce`, thread_ts: top });
    await comment(run.issue.id, '✅ Done: ENG-9001: Checks');
    const doubled = runProblems(look(), run, books).join('\n');
    expect(doubled).toContain('Slack announced ["BLOCKED","SUCCEEDED","SUCCEEDED"], expected ["BLOCKED","SUCCEEDED"]');
    expect(doubled).toContain('Linear announced ["BLOCKED","SUCCEEDED","SUCCEEDED"], expected ["BLOCKED","SUCCEEDED"]');
    expect(globalProblems(look(), [run])).toEqual(['4 Linear comments of ours, expected 3']);

    // A place the books forget, and a run whose issue never heard of it.
    const missing = runProblems(look(), { ...run, issue: { ...run.issue, id: randomUUID() } }, { ...books, destinations: [`slack:${channel}`] }).join('\n');
    expect(missing).toContain('0 Linear start comments');
    expect(missing).toContain('Linear announced [], expected ["BLOCKED","SUCCEEDED"]');
    expect(missing).toMatch(/the tracked run does not list the place linear:/);
  });
});
