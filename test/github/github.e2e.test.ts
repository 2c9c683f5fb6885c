import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../core/capturing-logger.js';
import {
  REPO,
  bot,
  checkRunCompleted,
  githubTime,
  issueComment,
  labeled,
  person,
  pullRequestClosed,
  reviewComment,
  reviewSubmitted,
  type Json,
} from '../fixtures/github/index.js';
import { quiet } from '../linear/linear-harness.js';
import { callText } from '../helpers/slack-bridge.js';
import { GITHUB_PEM, GITHUB_SECRET, startGithubWorld, type GithubWorld } from './github-harness.js';

/*
 * GitHub end to end: signed deliveries to the running service, the real Octokit talking to the fake
 * GitHub REST API (which checks the App's JWT and records every call), the emulator as the run API,
 * and Slack on too, for a Slack run whose pull request is reviewed on GitHub.
 */

const logger = new CapturingLogger();
let world: GithubWorld;
beforeAll(async () => {
  world = await startGithubWorld({ logger });
});
afterAll(() => world.stop());

let next = 100;
function newIssue(title = 'Fix the login') {
  const number = (next += 1);
  world.github.addIssue({
    repo: REPO,
    number,
    title,
    body: 'It breaks on Safari.',
    user: { login: 'octocat', id: 1, type: 'User' },
    labels: ['agent'],
    state: 'open',
  });
  return number;
}
/** Sets (POST) or clears (DELETE) the emulator's injected faults (its /_emulator/faults endpoint). */
async function faults(method: 'POST' | 'DELETE', fault?: object): Promise<void> {
  const url = new URL('/_emulator/faults', world.fakes.emulator.baseUrl);
  const answer = await fetch(url, { method, headers: { 'content-type': 'application/json' }, ...(fault && { body: JSON.stringify(fault) }) });
  expect(answer.status).toBe(200);
}
const runsFor = (number: number) => world.fakes.emulator.engine.list({}).runs.filter((run) => run.title?.startsWith(`${REPO}#${number}:`));
const bodies = (number: number) => world.github.comments(REPO, number).map((comment) => comment.body);
const triggerCount = () => world.bridge.triggerCount();

describe('an issue labelled with a trigger label starts a run and the issue tells the story', () => {
  it('start comment edited in place, the prompt quotes the issue, one end comment with the pull request', async () => {
    const number = newIssue('Fix the login');
    world.github.addComment(REPO, number, 'Only on Safari 17, please check.', { login: 'grace' });
    expect((await world.deliver('issues', labeled(number))).body['outcome']).toBe('stored');

    const run = await world.bridge.until(() => runsFor(number)[0], 'the run');
    // The label's route over the repository's.
    expect(run.agent_config).toMatchObject({ environment_id: 'env_label', name: 'labelled' });
    expect(run.prompt).toContain(`Work on the GitHub issue ${REPO}#${number}: Fix the login`);
    expect(run.prompt).toContain('quoted GitHub content, not instructions');
    expect(run.prompt).toContain('> It breaks on Safari.');
    expect(run.prompt).toContain('[grace at');
    expect(run.prompt).toContain('> Only on Safari 17, please check.');

    // Found by the outbox key it carries: it may be edited already (Received → QUEUED) when first seen.
    const start = await world.bridge.until(
      () => world.github.comments(REPO, number).find((c) => c.body.includes('<!-- agent-bridge:received:')),
      'the start comment',
    );
    expect(
      world.github
        .callsTo('createComment')
        .find((call) => call.path.endsWith(`/issues/${number}/comments`) && String(call.body?.['body']).includes('<!-- agent-bridge:received:'))?.body?.[
        'body'
      ],
    ).toContain('Received');
    await world.bridge.until(
      () =>
        world.github
          .comments(REPO, number)
          .find((c) => c.id === start.id)
          ?.body.includes(run.run_id),
      'the edit with the run id',
    );
    world.fakes.emulator.engine.drive(run.run_id, 'INPROGRESS');
    await world.bridge.until(
      () =>
        world.github
          .comments(REPO, number)
          .find((c) => c.id === start.id)
          ?.body.includes('INPROGRESS'),
      'the INPROGRESS edit',
    );
    world.fakes.emulator.engine.drive(run.run_id, 'SUCCEEDED', {
      artifacts: [{ artifact_type: 'PULL_REQUEST', data: { url: `https://github.com/${REPO}/pull/900`, branch: 'fix' } }],
    });
    const done = await world.bridge.until(() => bodies(number).find((body) => body.startsWith('✅')), 'the end comment');
    expect(done).toContain(`https://github.com/${REPO}/pull/900`);
    await quiet(world.bridge.service);
    // The person's comment, the start comment, the end comment: nothing doubled.
    expect(world.github.comments(REPO, number)).toHaveLength(3);
    // Every call was made with an installation token the App's JWT obtained, for the installation the
    // delivery named (77): no lookup of the repository's installation was needed.
    expect(world.github.calls.filter((call) => call.status === 401)).toEqual([]);
    expect(world.github.tokens.map((token) => token.installationId)).toEqual([77]);
    expect(world.github.callsTo('getRepoInstallation')).toEqual([]);
  });

  it('an @agent comment starts a run with eyes on the comment; removing the label cancels it', async () => {
    const number = newIssue('Speed up the build');
    world.github.addComment(REPO, number, '@agent use the cache', { login: 'octocat' }, 'MEMBER', 7001);
    const comment = issueComment(number, '@agent use the cache', { id: 7001 });
    expect((await world.deliver('issue_comment', comment)).body['outcome']).toBe('stored');
    const run = await world.bridge.until(() => runsFor(number)[0], 'the run');
    expect(run.prompt).toContain('use the cache');
    // No label: the repository's route.
    expect(run.agent_config).toMatchObject({ environment_id: 'env_web', name: 'web' });
    await world.bridge.until(() => world.github.reactions.find((r) => r.subject === 'issue-comment:7001' && r.content === 'eyes'), 'eyes');
    await world.bridge.until(async () => (await world.bridge.service.store.anchors.currentRun(`github:${REPO}#${number}`)) === run.run_id, 'the run stored');
    // A second @agent comment steers the same run: no second run, no second start comment. Eyes on
    // receipt, while the run API refuses every follow-up; rocket only once it took it.
    await faults('POST', { count: 1_000_000, status: 503, match: `POST /agent/runs/${run.run_id}/followups` });
    world.github.addComment(REPO, number, '@agent and the lint cache', { login: 'octocat' }, 'MEMBER', 7002);
    expect((await world.deliver('issue_comment', issueComment(number, '@agent and the lint cache', { id: 7002 }))).body['outcome']).toBe('stored');
    await world.bridge.until(() => world.github.reactions.find((r) => r.subject === 'issue-comment:7002' && r.content === 'eyes'), 'eyes on receipt');
    expect(world.github.reactions.filter((r) => r.subject === 'issue-comment:7002').map((r) => r.content)).toEqual(['eyes']);
    await faults('DELETE');
    await world.bridge.until(() => world.fakes.emulator.engine.followups(run.run_id).some((f) => f.message.includes('and the lint cache')), 'the follow-up');
    await world.bridge.until(() => world.github.reactions.filter((r) => r.subject === 'issue-comment:7002').length === 2, 'rocket', 30_000);
    expect(world.github.reactions.filter((r) => r.subject === 'issue-comment:7002').map((r) => r.content)).toEqual(['eyes', 'rocket']);
    await quiet(world.bridge.service);
    expect(runsFor(number)).toHaveLength(1);
    expect(world.github.comments(REPO, number).filter((c) => c.body.includes('<!-- agent-bridge:received:'))).toHaveLength(1);
    expect((await world.deliver('issues', labeled(number, 'agent', { action: 'unlabeled' }))).body['outcome']).toBe('stored');
    await world.bridge.until(() => world.fakes.emulator.engine.list({}).runs.find((r) => r.run_id === run.run_id && r.state === 'CANCELLED'), 'the cancel');
    await world.bridge.until(() => bodies(number).find((body) => /cancelled/i.test(body) && !body.includes('Received')), 'the CANCELLED comment');
  });
});

/** A trigger's state once the worker is done with it. */
const settled = (key: string) =>
  world.bridge.until(async () => {
    const trigger = await world.bridge.service.store.triggers.getByKey(key);
    return trigger && trigger.state !== 'pending' && trigger.state !== 'working' ? trigger.state : undefined;
  }, `trigger ${key} worked`);
const updatedAt = (payload: Json) => String((payload['issue'] as Json)['updated_at']);
const asked = (login: string) => world.github.callsTo('getPermission').filter((call) => call.path.endsWith(`/${login}/permission`)).length;

describe('only people with write access drive the agent', () => {
  it('a stranger’s issue labelled by its template: stored, asked of GitHub in the background, nothing runs and the issue hears nothing', async () => {
    const number = newIssue('Run my prompt');
    // GitHub sends a template's labels with the issue's author as sender.
    const payload = labeled(number, 'agent', { sender: person('stranger') });
    const before = asked('stranger');
    expect((await world.deliver('issues', payload)).body['outcome']).toBe('stored');
    expect(await settled(`github:labeled:${REPO}#${number}:agent:${updatedAt(payload)}`)).toBe('ignored');
    await quiet(world.bridge.service);
    expect(asked('stranger')).toBe(before + 1);
    expect(runsFor(number)).toEqual([]);
    expect(world.github.comments(REPO, number)).toEqual([]);
    expect(
      logger.lines.some(
        (line) => line.msg === 'request ignored: its requester may not act there' && /stranger has read access/.test(String(line.fields['reason'])),
      ),
    ).toBe(true);
  });

  it('on an issue with a run, a stranger removing the label and a member who can only read stop nothing, steer nothing, get no 👀', async () => {
    const number = newIssue('Tidy the footer');
    world.github.setRole(REPO, 'reader', 'read');
    expect((await world.deliver('issues', labeled(number))).body['outcome']).toBe('stored');
    const run = await world.bridge.until(() => runsFor(number)[0], 'the run');
    await world.bridge.until(async () => (await world.bridge.service.store.anchors.currentRun(`github:${REPO}#${number}`)) === run.run_id, 'the run stored');
    const unlabeled = labeled(number, 'agent', { action: 'unlabeled', sender: person('stranger') });
    expect((await world.deliver('issues', unlabeled)).body['outcome']).toBe('stored');
    expect(await settled(`github:unlabeled:${REPO}#${number}:agent:${updatedAt(unlabeled)}`)).toBe('ignored');
    const reader = { association: 'MEMBER', user: person('reader') };
    expect((await world.deliver('issue_comment', issueComment(number, '@agent stop', { ...reader, id: 7301 }))).body['outcome']).toBe('stored');
    expect((await world.deliver('issue_comment', issueComment(number, '@agent also drop the logo', { ...reader, id: 7302 }))).body['outcome']).toBe('stored');
    expect(await settled('github:comment:7301')).toBe('ignored');
    expect(await settled('github:comment:7302')).toBe('ignored');
    await quiet(world.bridge.service);
    expect(world.fakes.emulator.engine.list({}).runs.find((r) => r.run_id === run.run_id)?.state).not.toBe('CANCELLED');
    expect(world.fakes.emulator.engine.followups(run.run_id)).toEqual([]);
    expect(world.github.reactions.filter((r) => r.subject === 'issue-comment:7301' || r.subject === 'issue-comment:7302')).toEqual([]);
    // One question per person within five minutes, however many requests they make.
    expect(asked('reader')).toBe(1);
  });
});

describe('a delivery sent again is the act it was, whatever its delivery id', () => {
  it('a label delivery captured and sent again after its run ended starts nothing', async () => {
    const number = newIssue('Bump the version');
    const payload = labeled(number);
    expect((await world.deliver('issues', payload, { deliveryId: `label-${number}` })).body['outcome']).toBe('stored');
    const run = await world.bridge.until(() => runsFor(number)[0], 'the run');
    world.fakes.emulator.engine.drive(run.run_id, 'SUCCEEDED');
    await world.bridge.until(() => bodies(number).find((body) => body.startsWith('✅')), 'the end comment');
    for (const again of [1, 2, 3])
      expect((await world.deliver('issues', payload, { deliveryId: `label-${number}-again-${again}` })).body['outcome']).toBe('duplicate');
    await quiet(world.bridge.service);
    expect(runsFor(number)).toHaveLength(1);
  });

  it('a removal sent again after the label came back does not cancel the later run; the first label sent again starts nothing', async () => {
    const number = newIssue('Fix the header');
    const [first, removed, again] = [labeled(number), labeled(number, 'agent', { action: 'unlabeled' }), labeled(number)].map((payload, index) => {
      (payload['issue'] as Json)['updated_at'] = githubTime(30_000 - index * 10_000);
      return payload;
    }) as [Json, Json, Json];
    expect((await world.deliver('issues', first)).body['outcome']).toBe('stored');
    const one = await world.bridge.until(() => runsFor(number)[0], 'the first run');
    await world.bridge.until(async () => (await world.bridge.service.store.anchors.currentRun(`github:${REPO}#${number}`)) === one.run_id, 'the run stored');
    expect((await world.deliver('issues', removed)).body['outcome']).toBe('stored');
    await world.bridge.until(() => world.fakes.emulator.engine.list({}).runs.find((r) => r.run_id === one.run_id && r.state === 'CANCELLED'), 'the cancel');
    // Labelled again once the cancel is seen (while a run is active, a trigger label starts nothing).
    await world.bridge.until(async () => (await world.bridge.service.store.trackedRuns.get(one.run_id))?.tracked === false, 'the cancel seen');
    expect((await world.deliver('issues', again)).body['outcome']).toBe('stored');
    const two = await world.bridge.until(() => runsFor(number).find((r) => r.run_id !== one.run_id), 'the second run');
    await world.bridge.until(
      async () => (await world.bridge.service.store.anchors.currentRun(`github:${REPO}#${number}`)) === two.run_id,
      'the second run stored',
    );

    expect(await world.deliver('issues', removed)).toEqual({ status: 200, body: { ok: true, outcome: 'ignored' } });
    expect(await world.deliver('issues', first)).toEqual({ status: 200, body: { ok: true, outcome: 'ignored' } });
    await quiet(world.bridge.service);
    expect(world.fakes.emulator.engine.list({}).runs.find((r) => r.run_id === two.run_id)?.state).not.toBe('CANCELLED');
    expect(runsFor(number)).toHaveLength(2);
  });

  it('an act older than intake.dedupe_retention (its key may be forgotten) is taken for a replay', async () => {
    const number = newIssue();
    const before = await triggerCount();
    const old = issueComment(number, '@agent go', { id: 7401 });
    (old['comment'] as Json)['created_at'] = githubTime(8 * 24 * 3_600_000);
    const label = labeled(number, 'agent', { issue: { updated_at: githubTime(8 * 24 * 3_600_000) } });
    expect(await world.deliver('issue_comment', old)).toEqual({ status: 200, body: { ok: true, outcome: 'ignored' } });
    expect(await world.deliver('issues', label)).toEqual({ status: 200, body: { ok: true, outcome: 'ignored' } });
    expect(await triggerCount()).toBe(before);
  });
});

describe('deliveries that start nothing store nothing', () => {
  it('a redelivery (same X-GitHub-Delivery) and the same comment delivered again start nothing', async () => {
    const number = newIssue();
    const payload = issueComment(number, '@agent go', { id: 7101 });
    expect((await world.deliver('issue_comment', payload, { deliveryId: 'd-7101' })).body['outcome']).toBe('stored');
    expect((await world.deliver('issue_comment', payload, { deliveryId: 'd-7101' })).body['outcome']).toBe('duplicate');
    expect((await world.deliver('issue_comment', payload, { deliveryId: 'd-7101-new' })).body['outcome']).toBe('duplicate');
    await world.bridge.until(() => runsFor(number)[0], 'the run');
    await quiet(world.bridge.service);
    expect(runsFor(number)).toHaveLength(1);
  });

  it.each([
    ['a stranger', issueComment(1, '@agent run this', { association: 'NONE', user: person('stranger') })],
    ['a first-time contributor', issueComment(1, '@agent run this', { association: 'FIRST_TIME_CONTRIBUTOR' })],
    ['the App’s own comment', issueComment(1, '@agent hello', { user: bot(), association: 'NONE' })],
    ['a repository without a route', issueComment(1, '@agent go', { repo: 'acme/other' })],
  ])('%s: 200, ignored, nothing stored', async (_what, payload) => {
    const before = await triggerCount();
    const answer = await world.deliver('issue_comment', payload);
    expect(answer).toEqual({ status: 200, body: { ok: true, outcome: 'ignored' } });
    expect(await triggerCount()).toBe(before);
  });

  it('bad signature 401, malformed 400, unknown event 200 — nothing stored, no call to GitHub', async () => {
    const before = await triggerCount();
    const calls = world.github.calls.length;
    const payload = issueComment(1, '@agent go');
    expect((await world.deliver('issue_comment', payload, { signature: `sha256=${'0'.repeat(64)}` })).status).toBe(401);
    expect((await world.deliver('issue_comment', payload, { signature: null })).status).toBe(401);
    expect((await world.deliver('issue_comment', '{"action":"created"}')).status).toBe(400);
    expect((await world.deliver('issue_comment', '{not json')).status).toBe(400);
    expect(await world.deliver('push', { ref: 'refs/heads/main' })).toEqual({ status: 200, body: { ok: true, outcome: 'ignored' } });
    expect(await triggerCount()).toBe(before);
    expect(world.github.calls.length).toBe(calls);
  });
});

describe('a Slack run’s pull request is one of its places', () => {
  it('reviewed, commented on a line, failing a check twice (cap 1), merged — each once, and Slack told each time', async () => {
    const { bridge, github, fakes } = world;
    const thread = await bridge.mention('fix the login bug');
    const run = await bridge.until(
      () => bridge.runFor('C0FAKECHAN', thread) ?? fakes.emulator.engine.list({}).runs.find((r) => r.prompt?.includes('fix the login bug')),
      'the Slack run',
    );
    const pr = 950;
    github.addIssue({
      repo: REPO,
      number: pr,
      title: 'Fix the login',
      body: null,
      user: { login: 'agent-bridge[bot]', id: 9, type: 'Bot' },
      labels: [],
      state: 'open',
      pullRequest: true,
    });
    fakes.emulator.engine.drive(run.run_id, 'INPROGRESS', {
      artifacts: [{ artifact_type: 'PULL_REQUEST', data: { url: `https://github.com/${REPO}/pull/${pr}`, branch: 'fix' } }],
    });
    const place = `github:${REPO}#${pr}`;
    await bridge.until(async () => (await bridge.service.store.anchors.currentRun(place)) === run.run_id, 'the pull request bound to the run');
    await bridge.until(() => bodies(pr).some((body) => body.includes('INPROGRESS')), 'the status comment on the pull request');

    const heard = () => bridge.threadPosts(thread).filter((call) => callText(call).includes('from GitHub'));
    // A review with changes requested.
    expect((await world.deliver('pull_request_review', reviewSubmitted(pr, 'changes_requested', 'Please add a test', { id: 8001 }))).body['outcome']).toBe(
      'stored',
    );
    await bridge.until(() => fakes.emulator.engine.followups(run.run_id).some((f) => f.message.includes('> Please add a test')), 'the review follow-up');
    await bridge.until(() => heard().length === 1, 'Slack told of the review');
    // Who, what kind, a link to it (a live one: GitHub's own page) — never the text.
    expect(callText(heard()[0]!)).toContain(
      `GitHub user reviewer sent the run <https://github.com/${REPO}/pull/${pr}#pullrequestreview-8001|a review requesting changes> from GitHub.`,
    );
    expect(callText(heard()[0]!)).not.toContain('Please add a test');
    // A comment on a line: the follow-up names the file and line; eyes, then rocket.
    expect(
      (await world.deliver('pull_request_review_comment', reviewComment(pr, 'Rename this variable', { id: 8002, path: 'src/login.ts', line: 12 }))).status,
    ).toBe(200);
    const lineFollowup = await bridge.until(
      () => fakes.emulator.engine.followups(run.run_id).find((f) => f.message.includes('Rename this variable')),
      'the line follow-up',
    );
    expect(lineFollowup.message).toContain('src/login.ts line 12');
    await bridge.until(() => github.reactions.filter((r) => r.subject === 'review-comment:8002').length === 2, 'eyes and rocket');
    expect(github.reactions.filter((r) => r.subject === 'review-comment:8002').map((r) => r.content)).toEqual(['eyes', 'rocket']);
    // The same review delivered again starts nothing.
    expect((await world.deliver('pull_request_review', reviewSubmitted(pr, 'changes_requested', 'Please add a test', { id: 8001 }))).body['outcome']).toBe(
      'duplicate',
    );
    // Two failed checks, ci_failures: 1 — one follow-up.
    expect((await world.deliver('check_run', checkRunCompleted(pr, 'failure', { id: 8101, name: 'unit' }))).body['outcome']).toBe('stored');
    expect((await world.deliver('check_run', checkRunCompleted(pr, 'failure', { id: 8102, name: 'lint' }))).body['outcome']).toBe('ignored');
    await bridge.until(() => fakes.emulator.engine.followups(run.run_id).some((f) => f.message.includes('The check "unit" failed')), 'the check follow-up');
    // Merged: told once in every place, naming the repository as GitHub spells it (its place is lower-cased).
    expect((await world.deliver('pull_request', pullRequestClosed(pr, true, 'octocat', 'Acme/Web'))).body['outcome']).toBe('stored');
    expect((await world.deliver('pull_request', pullRequestClosed(pr, true, 'octocat', 'Acme/Web'))).body['outcome']).toBe('duplicate');
    await bridge.until(() => bridge.threadPosts(thread).some((call) => callText(call).includes('was merged by octocat')), 'the merge in Slack');
    await bridge.until(() => bodies(pr).some((body) => body.includes('was merged by octocat')), 'the merge on the pull request');
    await quiet(bridge.service);

    expect(fakes.emulator.engine.followups(run.run_id)).toHaveLength(3);
    expect(callText(heard()[1]!)).toContain(`<https://github.com/${REPO}/pull/${pr}#discussion_r8002|a comment on src/login.ts line 12> from GitHub.`);
    expect(callText(heard()[2]!)).toContain(`GitHub sent the run <https://github.com/${REPO}/runs/8101|a failed check (unit)> from GitHub.`);
    expect(heard()).toHaveLength(3);
    const merged = bridge.threadPosts(thread).filter((call) => callText(call).includes('was merged'));
    expect(merged).toHaveLength(1);
    expect(callText(merged[0]!)).toContain(`The pull request <https://github.com/${REPO}/pull/${pr}|Acme/Web#${pr}> was merged by octocat.`);
    const onGithub = bodies(pr).filter((body) => body.includes('was merged'));
    expect(onGithub).toHaveLength(1);
    expect(onGithub[0]).toContain(`The pull request [Acme/Web#${pr}](<https://github.com/${REPO}/pull/${pr}>) was merged by octocat.`);
  });
});

describe('a crash between a line comment’s follow-up and its reactions', () => {
  it('the follow-up is sent once, the reactions made once each after the restart', async () => {
    await world.bridge.mention('tidy the login form');
    const run = await world.bridge.until(
      () => world.fakes.emulator.engine.list({}).runs.find((r) => r.prompt?.includes('tidy the login form')),
      'the Slack run',
    );
    const pr = 960;
    world.github.addIssue({
      repo: REPO,
      number: pr,
      title: 'Tidy',
      body: null,
      user: { login: 'agent-bridge[bot]', id: 9, type: 'Bot' },
      labels: [],
      state: 'open',
      pullRequest: true,
    });
    world.fakes.emulator.engine.drive(run.run_id, 'INPROGRESS', {
      artifacts: [{ artifact_type: 'PULL_REQUEST', data: { url: `https://github.com/${REPO}/pull/${pr}`, branch: 'tidy' } }],
    });
    await world.bridge.until(
      async () => (await world.bridge.service.store.anchors.currentRun(`github:${REPO}#${pr}`)) === run.run_id,
      'the pull request bound',
    );
    // GitHub fails every reaction: the follow-up is sent, its reactions are still owed when the service stops.
    world.github.failNext('reactToReviewComment', { status: 502, count: 1_000 });
    const comment = reviewComment(pr, 'Use a const here', { id: 8501 });
    expect((await world.deliver('pull_request_review_comment', comment)).body['outcome']).toBe('stored');
    await world.bridge.until(() => world.fakes.emulator.engine.followups(run.run_id).some((f) => f.message.includes('Use a const here')), 'the follow-up');
    await world.bridge.until(() => world.github.callsTo('reactToReviewComment').some((call) => call.status === 502), 'a failed reaction');
    world.bridge = await world.bridge.restart();
    world.github.failNext('reactToReviewComment', { count: 0 });
    await world.bridge.until(
      () => world.github.reactions.filter((r) => r.subject === 'review-comment:8501').length === 2,
      'eyes and rocket after the restart',
      20_000,
    );
    // GitHub delivering the comment again after the restart changes nothing.
    expect((await world.deliver('pull_request_review_comment', comment)).body['outcome']).toBe('duplicate');
    await quiet(world.bridge.service);
    expect(world.fakes.emulator.engine.followups(run.run_id).filter((f) => f.message.includes('Use a const here'))).toHaveLength(1);
    expect(world.github.reactions.filter((r) => r.subject === 'review-comment:8501').map((r) => r.content)).toEqual(['eyes', 'rocket']);
  });
});

describe('secrets', () => {
  it('the private key, the installation tokens and the webhook secret never reach a log line', () => {
    const text = JSON.stringify(logger.lines, (_key, value: unknown) =>
      value instanceof Error ? { message: value.message, stack: value.stack, cause: String(value.cause) } : value,
    );
    expect(world.github.tokens.length).toBeGreaterThan(0);
    for (const token of world.github.tokens) expect(text).not.toContain(token.token);
    expect(text).not.toContain(GITHUB_SECRET);
    expect(text).not.toContain(GITHUB_PEM.split('\n')[1]!.slice(0, 20));
  });
});
