import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeGitlabJob } from '../fakes/gitlab-api.js';
import { GITLAB_IDS, diffNote, mergeRequestMerged, mergeRequestNote, noteId, pipelineFailed, type Person } from '../fixtures/gitlab/index.js';
import { quiet } from '../helpers/deliveries.js';
import { callText } from '../helpers/slack-bridge.js';
import { startGitlabWorld, type GitlabWorld } from './gitlab-harness.js';

/*
 * A Slack run whose artifact is a GitLab merge request: the merge request becomes one of the run's
 * places, and what is said and done there reaches the run (per gitlab.merge_requests and
 * gitlab.pipeline_failures), each once, the Slack thread told who sent what kind with a link.
 */

const PROJECT = GITLAB_IDS.project.path;
const { alice, rita, us } = GITLAB_IDS.people;

const yaml = (mergeRequests: string) => `tracker:
  interval: 1s
slack:
  followups: mentions
gitlab:
  merge_requests: ${mergeRequests}
  pipeline_failures: 1
  projects:
    acme/web: { config: { environment_id: env_web, name: web } }
`;

/** The helpers of one world: a Slack run, its merge request made a place, notes written there. */
function helpers(get: () => GitlabWorld) {
  let nextIid = 40;
  const web = () => ({ web: get().gitlab.url });
  const engine = () => get().fakes.emulator.engine;
  const awards = (note: number) =>
    get()
      .gitlab.awards.filter((award) => award.noteId === note)
      .map((award) => award.name);
  const followups = (runId: string, text: string) =>
    engine()
      .followups(runId)
      .filter((followup) => followup.message.includes(text));
  const mrNotes = (iid: number) => get().gitlab.notes(PROJECT, 'MergeRequest', iid);
  /** A Slack run whose artifact is a new merge request, bound as one of its places. */
  const slackRunWithMergeRequest = async (prompt: string) => {
    const { bridge, gitlab } = get();
    const thread = await bridge.mention(prompt);
    const run = await bridge.until(
      () =>
        engine()
          .list({})
          .runs.find((candidate) => candidate.prompt?.includes(prompt)),
      'the Slack run',
    );
    const iid = (nextIid += 1);
    gitlab.addMergeRequest({
      project: PROJECT,
      iid,
      title: 'Fix',
      description: null,
      state: 'opened',
      source_branch: 'fix',
      target_branch: 'main',
      author: us,
    });
    // As a person might spell it: the project in another case, a trailing slash.
    const url = `${gitlab.url}/Acme/Web/-/merge_requests/${iid}/`;
    engine().drive(run.run_id, 'INPROGRESS', { artifacts: [{ artifact_type: 'PULL_REQUEST', data: { url, branch: 'fix' } }] });
    const place = `gitlab:${PROJECT}!${iid}`;
    await bridge.until(async () => (await bridge.service.store.anchors.currentRun(place)) === run.run_id, 'the merge request bound to the run');
    return { thread, run, iid, place };
  };
  /** A diff note someone wrote, seeded on the fake (awards need it there), and its hook. */
  const lineNote = (iid: number, body: string, user: Person = alice, path = 'src/login.ts', line = 12) => {
    const id = noteId();
    get().gitlab.addNote(PROJECT, 'MergeRequest', iid, body, user, {
      id,
      position: { base_sha: 'a', start_sha: 'a', head_sha: 'b', old_path: path, new_path: path, position_type: 'text', old_line: null, new_line: line },
    });
    return { id, event: diffNote(iid, body, { path, newLine: line }, { id, user, ...web() }) };
  };
  const settled = (key: string) =>
    get().bridge.until(async () => {
      const trigger = await get().bridge.service.store.triggers.getByKey(key);
      return trigger && trigger.state !== 'pending' && trigger.state !== 'working' ? trigger.state : undefined;
    }, `trigger ${key} worked`);
  return { web, engine, awards, followups, mrNotes, slackRunWithMergeRequest, lineNote, settled };
}

describe('a Slack run’s merge request (merge_requests: reviews, pipeline_failures: 1)', () => {
  let world: GitlabWorld;
  beforeAll(async () => {
    world = await startGitlabWorld('token', { yaml: yaml('reviews') });
  });
  afterAll(() => world?.stop());
  const { web, engine, awards, followups, mrNotes, slackRunWithMergeRequest, lineNote, settled } = helpers(() => world);

  it('a diff note, a pipeline failing twice and a merge reach the run once each; Slack hears who sent what kind with a link; the end note on the merge request', async () => {
    const { bridge, gitlab } = world;
    const { thread, run, iid } = await slackRunWithMergeRequest('fix the login bug on GitLab');
    await bridge.until(() => mrNotes(iid).some((note) => note.author.id === us.id && note.body.includes('INPROGRESS')), 'the status note on the merge request');
    const heard = () => bridge.threadPosts(thread).filter((call) => callText(call).includes('from GitLab'));

    // A comment on a line: the follow-up names the file and line and quotes it; eyes, then rocket.
    const comment = lineNote(iid, 'Rename this variable');
    expect((await world.deliver(comment.event)).body['outcome']).toBe('stored');
    const lineFollowup = await bridge.until(() => followups(run.run_id, 'Rename this variable')[0], 'the line follow-up');
    expect(lineFollowup.message).toContain(`alice commented on src/login.ts line 12 of the merge request ${PROJECT}!${iid}`);
    expect(lineFollowup.message).toContain('> Rename this variable');
    await bridge.until(() => awards(comment.id).length === 2, 'eyes and rocket');
    expect(awards(comment.id)).toEqual(['eyes', 'rocket']);
    await bridge.until(() => heard().length === 1, 'Slack told of the comment');
    const noteUrl = `${gitlab.url}/${PROJECT}/-/merge_requests/${iid}#note_${comment.id}`;
    expect(callText(heard()[0]!)).toContain(`GitLab user alice sent the run <${noteUrl}|a comment on src/login.ts line 12> from GitLab.`);
    expect(callText(heard()[0]!)).not.toContain('Rename this variable');
    // The same note again, under a new delivery: nothing.
    expect((await world.deliver(comment.event)).body['outcome']).toBe('duplicate');

    // Two failed pipelines, pipeline_failures: 1 — one follow-up, with the tail of the failed job's log.
    const jobs: FakeGitlabJob[] = [
      { id: 7002, name: 'unit-tests', stage: 'test', status: 'failed', trace: '\u001b[31mFAIL\u001b[0m login.test.ts\nError: expected 200, got 500\n' },
      { id: 7003, name: 'lint', stage: 'test', status: 'failed', allow_failure: true, trace: 'warnings' },
    ];
    gitlab.addPipeline({ project: PROJECT, id: 9101, status: 'failed', ref: 'fix', sha: 'b', jobs });
    const failed = pipelineFailed(iid, { id: 9101, ...web() });
    expect((await world.deliver(failed)).body['outcome']).toBe('stored');
    // A redelivery under a new key takes no second place; another failure finds none left.
    expect((await world.deliver(failed)).body['outcome']).toBe('duplicate');
    expect((await world.deliver(pipelineFailed(iid, { id: 9102, ...web() }))).body['outcome']).toBe('ignored');
    const pipelineFollowup = await bridge.until(() => followups(run.run_id, 'The pipeline #9101 failed')[0], 'the pipeline follow-up');
    expect(pipelineFollowup.message).toContain(`- "unit-tests" (stage "test"): ${gitlab.url}/${PROJECT}/-/jobs/7002`);
    expect(pipelineFollowup.message).toContain('[the log of "unit-tests", its last lines]\n> FAIL login.test.ts\n> Error: expected 200, got 500');
    expect(pipelineFollowup.message).not.toContain('\u001b');
    expect(gitlab.callsTo('getJobTrace').map((call) => call.rawPath)).toEqual([`/api/v4/projects/acme%2Fweb/jobs/7002/trace`]);

    // Merged, the hook delivered twice: told once in every place.
    expect((await world.deliver(mergeRequestMerged(iid, { project: 'Acme/Web', ...web() }))).body['outcome']).toBe('stored');
    expect((await world.deliver(mergeRequestMerged(iid, { project: 'Acme/Web', ...web() }))).body['outcome']).toBe('duplicate');
    await bridge.until(() => bridge.threadPosts(thread).some((call) => callText(call).includes('was merged by bob')), 'the merge in Slack');
    await bridge.until(() => mrNotes(iid).some((note) => note.body.includes('was merged by bob')), 'the merge on the merge request');

    engine().drive(run.run_id, 'SUCCEEDED');
    await bridge.until(() => mrNotes(iid).some((note) => note.author.id === us.id && note.body.startsWith('✅')), 'the end note on the merge request');
    await quiet(bridge.service);

    expect(engine().followups(run.run_id)).toHaveLength(2);
    expect(heard()).toHaveLength(2);
    const pipelineUrl = `${gitlab.url}/${PROJECT}/-/pipelines/9101`;
    expect(callText(heard()[1]!)).toContain(`GitLab sent the run <${pipelineUrl}|a failed pipeline (#9101)> from GitLab.`);
    const merged = bridge.threadPosts(thread).filter((call) => callText(call).includes('was merged'));
    expect(merged).toHaveLength(1);
    const mrUrl = `${gitlab.url}/Acme/Web/-/merge_requests/${iid}`;
    expect(callText(merged[0]!)).toContain(`The merge request <${mrUrl}|Acme/Web!${iid}> was merged by bob.`);
    const onGitlab = mrNotes(iid).filter((note) => note.body.includes('was merged'));
    expect(onGitlab).toHaveLength(1);
    // The label is escaped as every Markdown label is (`!` among the characters Markdown reads).
    expect(onGitlab[0]!.body).toContain(`The merge request [Acme/Web\\!${iid}](<${mrUrl}>) was merged by bob.`);
    expect(mrNotes(iid).filter((note) => note.body.startsWith('✅'))).toHaveLength(1);
  });

  it('a Reporter’s diff note is refused in the background; our own and a note without a run are ignored at the edge', async () => {
    const { bridge } = world;
    const { run, iid } = await slackRunWithMergeRequest('tidy the settings page');
    const reporter = lineNote(iid, 'Delete the tests', rita);
    expect((await world.deliver(reporter.event)).body['outcome']).toBe('stored');
    expect(await settled(`gitlab:note:${reporter.id}`)).toBe('ignored');
    const before = await bridge.triggerCount();
    expect(await world.deliver(diffNote(iid, 'Done', {}, { user: us, ...web() }))).toEqual({ status: 200, body: { ok: true, outcome: 'ignored' } });
    // A merge request no run made.
    expect(await world.deliver(diffNote(iid + 500, 'Rename', {}, web()))).toEqual({ status: 200, body: { ok: true, outcome: 'ignored' } });
    expect(await bridge.triggerCount()).toBe(before);
    await quiet(bridge.service);
    expect(followups(run.run_id, 'Delete the tests')).toEqual([]);
    expect(awards(reporter.id)).toEqual([]);
  });

  it('a crash between a diff note’s follow-up and its award emoji: after the restart, rocket once and the follow-up sent once', async () => {
    const { run, iid } = await slackRunWithMergeRequest('shorten the signup form');
    // GitLab fails every award: the follow-up is sent, its emoji are still owed when the service stops.
    world.gitlab.failNext('awardMergeRequestNote', { status: 502, count: 1_000 });
    const comment = lineNote(iid, 'Use a const here');
    expect((await world.deliver(comment.event)).body['outcome']).toBe('stored');
    await world.bridge.until(() => followups(run.run_id, 'Use a const here').length === 1, 'the follow-up');
    await world.bridge.until(() => world.gitlab.callsTo('awardMergeRequestNote').some((call) => call.status === 502), 'a failed award');
    world.bridge = await world.bridge.restart();
    world.gitlab.failNext('awardMergeRequestNote', { count: 0 });
    await world.bridge.until(() => awards(comment.id).length === 2, 'eyes and rocket after the restart', 20_000);
    // GitLab delivering the note again after the restart changes nothing.
    expect((await world.deliver(comment.event, { idempotencyKey: randomUUID() })).body['outcome']).toBe('duplicate');
    await quiet(world.bridge.service);
    expect(followups(run.run_id, 'Use a const here')).toHaveLength(1);
    expect(awards(comment.id)).toEqual(['eyes', 'rocket']);
  });
});

describe('a Slack run’s merge request under merge_requests: mentions', () => {
  let world: GitlabWorld;
  beforeAll(async () => {
    world = await startGitlabWorld('token', { yaml: yaml('mentions') });
  });
  afterAll(() => world?.stop());
  const { web, awards, followups, slackRunWithMergeRequest, lineNote } = helpers(() => world);

  it('a diff note is ignored; a handle note steers the run, and "@agent stop" stops it', async () => {
    const { bridge } = world;
    const { run, iid } = await slackRunWithMergeRequest('speed up the build');
    const before = await bridge.triggerCount();
    expect(await world.deliver(lineNote(iid, 'Rename this').event)).toEqual({ status: 200, body: { ok: true, outcome: 'ignored' } });
    expect(await bridge.triggerCount()).toBe(before);

    const id = noteId();
    world.gitlab.addNote(PROJECT, 'MergeRequest', iid, '@agent cache the node modules', alice, { id });
    expect((await world.deliver(mergeRequestNote(iid, '@agent cache the node modules', { id, ...web() }))).body['outcome']).toBe('stored');
    await bridge.until(() => followups(run.run_id, 'cache the node modules').length === 1, 'the follow-up');
    await bridge.until(() => awards(id).length === 2, 'eyes and rocket');

    expect((await world.deliver(mergeRequestNote(iid, '@agent stop', { ...web() }))).body['outcome']).toBe('stored');
    await bridge.until(() => world.fakes.emulator.engine.list({}).runs.find((r) => r.run_id === run.run_id && r.state === 'CANCELLED'), 'the stop');
    expect(followups(run.run_id, 'Rename this')).toEqual([]);
  });
});
