import { describe, expect, it } from 'vitest';
import type { StoredTrigger } from '../core/ports/store.js';
import { slackAccessPolicy, slackUserRefusal } from './access.js';

const OURS = { team: 'T0OURS', enterprise: 'E0OURS' };
const trigger = (source: string, requester?: string, orgs?: string[]) =>
  ({ source, payload: requester ? { requester: { id: requester, ...(orgs && { orgs }) } } : {} }) as unknown as StoredTrigger;

const policy = (allowedUsers: string[] = [], allowedTeams: string[] = []) => {
  const access = slackAccessPolicy({ allowedUsers, allowedTeams });
  access.knowOwnOrganisation(OURS);
  return access;
};

describe('slackAccessPolicy: slack.allowed_users', () => {
  it.each([
    ['everyone when the list is empty', [], trigger('slack', 'U9'), false],
    ['a listed person', ['U1', 'U2'], trigger('slack', 'U2'), false],
    ['someone else', ['U1'], trigger('slack', 'U9'), true],
    ['a Slack trigger without a requester', ['U1'], trigger('slack'), true],
    ['other sources untouched', ['U1'], trigger('linear', 'someone'), false],
  ])('%s', (_what, allowed, candidate, denied) => {
    const reason = policy(allowed).deny(candidate);
    expect(reason !== undefined).toBe(denied);
    if (denied) expect(reason).toContain('slack.allowed_users');
  });
});

describe('slackAccessPolicy: our own organisation and slack.allowed_teams', () => {
  it.each([
    ['a person of our workspace', [], trigger('slack', 'U1', ['T0OURS']), undefined],
    ['a person of another workspace of our Enterprise Grid org', [], trigger('slack', 'U1', ['T0SISTER', 'E0OURS']), undefined],
    ['a Slack Connect guest of another organisation', [], trigger('slack', 'U1', ['T0GUEST']), /slack\.allowed_teams/],
    ['a guest whose workspace is listed', ['T0GUEST'], trigger('slack', 'U1', ['T0GUEST']), undefined],
    ['a guest whose Enterprise Grid org is listed', ['E0PARTNER'], trigger('slack', 'U1', ['T0GUEST', 'E0PARTNER']), undefined],
    ['a guest of an organisation other than the one listed', ['T0PARTNER'], trigger('slack', 'U1', ['T0GUEST']), /slack\.allowed_teams/],
    ['someone whose organisation Slack did not name', [], trigger('slack', 'U1', []), /did not say which one.*mention me instead/],
    ['a trigger stored before organisations were recorded', [], trigger('slack', 'U1'), undefined],
    ['other sources untouched', [], trigger('github', 'octocat', ['T0GUEST']), undefined],
  ])('%s', (_what, teams, candidate, expected) => {
    const reason = policy([], teams).deny(candidate);
    if (expected === undefined) expect(reason).toBeUndefined();
    else expect(reason).toMatch(expected);
  });

  it('a guest is refused even when slack.allowed_users lists them: both must let a person in', () => {
    expect(policy(['U1']).deny(trigger('slack', 'U1', ['T0GUEST']))).toContain('slack.allowed_teams');
    expect(policy(['U2']).deny(trigger('slack', 'U1', ['T0OURS']))).toContain('slack.allowed_users');
  });

  it('until Slack has named our own organisation, only the listed ones are ours', () => {
    const unknown = slackAccessPolicy({ allowedUsers: [], allowedTeams: ['T0PARTNER'] });
    expect(unknown.deny(trigger('slack', 'U1', ['T0OURS']))).toContain('slack.allowed_teams');
    expect(unknown.deny(trigger('slack', 'U1', ['T0PARTNER']))).toBeUndefined();
  });

  it('slackUserRefusal judges a person who acts outside any trigger the same way', () => {
    expect(slackUserRefusal(policy(), { id: 'U1', orgs: ['T0OURS'] })).toBeUndefined();
    expect(slackUserRefusal(policy(), { id: 'U1', orgs: ['T0GUEST'] })).toBe(
      'Sorry <@U1>, this service acts only for people of its own Slack workspace and of the organisations listed in its slack.allowed_teams.',
    );
  });
});
