import { describe, expect, it } from 'vitest';
import { GITLAB_IDS, issueEvent, issueLabelled, issueNote, issueOpened, issueUnlabelled, type GitlabEventFixture } from '../../test/fixtures/gitlab/index.js';
import { addressedTo, notAPerson, type GitlabAct, type GitlabTriggerConfig } from './acts.js';
import { actOf } from './normalise.js';
import { parseGitlabWebhook, type GitlabEvent } from './parse-webhook.js';

const CONFIG: GitlabTriggerConfig = {
  handle: '@agent',
  projects: { 'acme/web': {} },
  labels: { agent: {} },
  allowedUsers: ['bob'],
  mergeRequests: 'reviews',
  pipelineFailures: 0,
};
/** Our token's user, here a bot user's personal token: a name that does not look like a bot. */
const SELF = { id: 555, username: 'bridge' };
const PLACE = 'gitlab:acme/web#7';
const { alice, bob, otherBot, us } = GITLAB_IDS.people;

const eventOf = (fixture: GitlabEventFixture): GitlabEvent => {
  const parsed = parseGitlabWebhook(fixture.hook, JSON.stringify(fixture.body));
  if (!parsed.ok || !('event' in parsed)) throw new Error(`not parsed: ${JSON.stringify(parsed)}`);
  return parsed.event;
};
const act = (fixture: GitlabEventFixture, config: GitlabTriggerConfig = CONFIG): GitlabAct => actOf(eventOf(fixture), config, SELF);
/** What an act asks for in one line: its kind, the input's kind, whether it needs a run, steers when linked, asks who. */
const summary = (result: GitlabAct) =>
  result.kind === 'ignored'
    ? `ignored: ${result.reason}`
    : result.kind === 'closed'
      ? `closed ${result.place} ${result.merged ? 'merged' : 'unmerged'} by ${result.by}`
      : [
          result.input.kind,
          result.input.anchor,
          result.needsRun ? 'needs run' : 'any',
          result.ifLinked ? `else ${result.ifLinked.kind}` : '',
          result.input.payload.checkRequester ? 'check' : 'cleared',
        ]
          .filter(Boolean)
          .join(' ');

describe('what a GitLab delivery asks for', () => {
  it.each<[string, GitlabEventFixture, string]>([
    ['a trigger label added', issueLabelled(7, 'agent', ['bug']), `start ${PLACE} any check`],
    ['a trigger label added in another case', issueLabelled(7, 'AGENT'), `start ${PLACE} any check`],
    ['an issue opened with a trigger label', issueOpened(7, { labels: ['agent'] }), `start ${PLACE} any check`],
    ['a trigger label removed', issueUnlabelled(7, 'agent', ['agent', 'bug']), `cancel ${PLACE} needs run check`],
    ['a trigger label added by an allowed user', issueLabelled(7, 'agent', [], { user: bob }), `start ${PLACE} any cleared`],
    ['another label added', issueLabelled(7, 'bug'), 'ignored: no trigger label added or removed'],
    ['an issue updated with its labels unchanged', issueEvent(7, { action: 'update', labels: ['agent'] }), 'ignored: no trigger label added or removed'],
    ['an issue closed', issueEvent(7, { action: 'close', labels: ['agent'] }), 'ignored: no trigger label added or removed'],
    ['a label in a project without a route', issueLabelled(7, 'agent', [], { project: 'strangers/elsewhere' }), 'ignored: project has no route'],
    ['a label added by another bot', issueLabelled(7, 'agent', [], { user: otherBot }), 'ignored: written by a bot'],
    ['an @agent note', issueNote(7, '@agent use pnpm'), `start ${PLACE} any else followup check`],
    ['an @agent note in another case, with a comma', issueNote(7, '@Agent, use pnpm'), `start ${PLACE} any else followup check`],
    ['@agent new', issueNote(7, '@agent new try again'), `start ${PLACE} any check`],
    ['@agent stop', issueNote(7, '@agent stop'), `cancel ${PLACE} needs run check`],
    ['@agent stop by an allowed user', issueNote(7, '@agent stop', { user: bob }), `cancel ${PLACE} needs run cleared`],
    ['a note not addressed to us', issueNote(7, 'thanks @agent'), 'ignored: note not addressed to us'],
    ['our own note (the token’s user)', issueNote(7, '@agent go', { user: { ...SELF, name: 'Bridge' } }), 'ignored: our own note'],
    ['a project access token’s note', issueNote(7, '@agent go', { user: us }), 'ignored: written by a bot'],
    ['a system note', issueNote(7, '@agent added ~agent label', { system: true }), 'ignored: a system note'],
    ['an edited note', issueNote(7, '@agent go', { action: 'update' }), 'ignored: an edited note is not acted on'],
    ['a note in a project without a route', issueNote(7, '@agent go', { project: 'strangers/elsewhere' }), 'ignored: project has no route'],
  ])('%s', (_name, fixture, expected) => {
    expect(summary(act(fixture))).toBe(expected);
  });

  it('a start carries what the worker and the places need: prompt, route origin, ticket, the note and who asked by id', () => {
    const result = act(issueNote(7, '@agent use pnpm', { id: 991, user: alice }));
    expect(result.kind === 'trigger' && result.input).toMatchObject({
      key: 'gitlab:note:991',
      source: 'gitlab',
      payload: {
        prompt: 'use pnpm\n\nGitLab issue acme/web#7: Fix the login on Safari\nURL: https://gitlab.example.com/acme/web/-/issues/7',
        title: 'acme/web#7: Fix the login on Safari',
        origin: { source: 'gitlab', project: 'acme/web' },
        destinations: [PLACE],
        requester: { platform: 'gitlab', id: 'alice', name: 'alice' },
        ticket: { ref: 'acme/web#7', from: 'GitLab' },
        reference: { project: 'acme/web', kind: 'issues', iid: 7, note: 991, userId: alice.id },
        followupIfLinked: true,
      },
    });
  });

  it('a label change is keyed by the issue, the label and GitLab’s time, so a redelivery under any id is the same act', () => {
    const first = act(issueLabelled(7, 'agent'));
    const again = act(issueLabelled(7, 'agent'));
    expect(first.kind === 'trigger' && first.input.key).toMatch(/^gitlab:labeled:acme\/web#7:agent:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(first.kind === 'trigger' && again.kind === 'trigger' && first.input.key === again.input.key).toBe(true);
  });

  it('a label’s route and its companion places: the label’s over the project’s', () => {
    const config = { ...CONFIG, companions: { projects: { 'acme/web': ['slack:C1'] }, labels: { agent: ['teams:19:x@thread.tacv2'] } } };
    const labelled = act(issueLabelled(7, 'agent'), config);
    const noted = act(issueNote(7, '@agent go'), config);
    expect(labelled.kind === 'trigger' && labelled.input.kind === 'start' && labelled.input.payload.destinations).toEqual([PLACE, 'teams:19:x@thread.tacv2']);
    expect(noted.kind === 'trigger' && noted.input.kind === 'start' && noted.input.payload.destinations).toEqual([PLACE, 'slack:C1']);
  });
});

describe('addressedTo and notAPerson', () => {
  it.each([
    ['@agent fix it', 'fix it'],
    ['  @AGENT:  fix it', 'fix it'],
    ['@agent', ''],
    ['@agents fix it', undefined],
    ['fix it @agent', undefined],
  ])('%j → %j', (body, rest) => {
    expect(addressedTo(body, '@agent')).toBe(rest);
  });

  it.each([
    [{ id: 9, username: 'project_42_bot_5f1c2d3e' }, 'written by a bot'],
    [{ id: 9, username: 'group_7_bot_0a1b' }, 'written by a bot'],
    [{ id: 9, username: 'service_account_group_7_abc' }, 'written by a bot'],
    [{ id: 1, username: 'ghost' }, 'written by a bot'],
    [{ id: 555, username: 'bridge' }, 'our own note'],
    [{ id: 9, username: 'alice' }, undefined],
    [{ id: 9, username: 'project_manager' }, undefined],
  ])('%j → %j', (user, reason) => {
    expect(notAPerson(user, SELF)).toBe(reason);
  });
});
