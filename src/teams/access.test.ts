import { describe, expect, it } from 'vitest';
import { TEAMS_IDS, TEAMS_PEOPLE } from '../../test/fixtures/teams/index.js';
import type { StoredTrigger } from '../core/ports/store.js';
import { teamsAccessPolicy } from './access.js';

const OTHER_TENANT = '00000000-0000-4000-8000-0000000e7111';
const { ada, grace, mallory } = TEAMS_PEOPLE;
const trigger = (source: string, requester?: { id: string; name?: string; orgs?: string[] }) =>
  ({ source, payload: requester ? { requester: { platform: source, ...requester } } : {} }) as unknown as StoredTrigger;

describe('teamsAccessPolicy', () => {
  it.each<[string, string[], StoredTrigger, RegExp | undefined]>([
    ['everyone of the tenant when allowed_users is empty', [], trigger('teams', { id: mallory.aadObjectId, orgs: [TEAMS_IDS.tenant] }), undefined],
    ['a listed person', [ada.aadObjectId, grace.aadObjectId], trigger('teams', { id: grace.aadObjectId, orgs: [TEAMS_IDS.tenant] }), undefined],
    ['a listed person, listed in capitals', [ada.aadObjectId.toUpperCase()], trigger('teams', { id: ada.aadObjectId, orgs: [TEAMS_IDS.tenant] }), undefined],
    [
      'a listed person, whose id comes in capitals',
      [ada.aadObjectId],
      trigger('teams', { id: ada.aadObjectId.toUpperCase(), orgs: [TEAMS_IDS.tenant] }),
      undefined,
    ],
    [
      'someone not listed',
      [ada.aadObjectId],
      trigger('teams', { id: mallory.aadObjectId, name: 'Mallory', orgs: [TEAMS_IDS.tenant] }),
      /^Sorry Mallory, only the people listed in teams\.allowed_users/,
    ],
    ['a Teams trigger without a requester, when a list is set', [ada.aadObjectId], trigger('teams'), /^Sorry, only the people listed in teams\.allowed_users/],
    [
      'a person of another tenant',
      [],
      trigger('teams', { id: ada.aadObjectId, name: 'Ada', orgs: [OTHER_TENANT] }),
      /^Sorry Ada, this service acts only for people of its own Microsoft 365 organisation/,
    ],
    [
      'a person of another tenant, even when listed',
      [ada.aadObjectId],
      trigger('teams', { id: ada.aadObjectId, orgs: [OTHER_TENANT] }),
      /own Microsoft 365 organisation/,
    ],
    ['a person whose tenant Teams did not name', [], trigger('teams', { id: ada.aadObjectId, orgs: [] }), /own Microsoft 365 organisation/],
    ['a trigger stored without organisations', [], trigger('teams', { id: ada.aadObjectId }), undefined],
    ['other sources untouched', [ada.aadObjectId], trigger('slack', { id: 'U0HUMAN001', orgs: ['T0GUEST'] }), undefined],
    ['other sources untouched, without a requester', [ada.aadObjectId], trigger('github'), undefined],
  ])('%s', (_what, allowed, candidate, refusal) => {
    const reason = teamsAccessPolicy(allowed, TEAMS_IDS.tenant).deny(candidate);
    if (refusal) expect(reason).toMatch(refusal);
    else expect(reason).toBeUndefined();
  });

  it('without a tenant to compare, only allowed_users decides', () => {
    expect(teamsAccessPolicy([]).deny(trigger('teams', { id: ada.aadObjectId, orgs: [OTHER_TENANT] }))).toBeUndefined();
    expect(teamsAccessPolicy([grace.aadObjectId]).deny(trigger('teams', { id: ada.aadObjectId, orgs: [OTHER_TENANT] }))).toMatch(/teams\.allowed_users/);
  });
});
