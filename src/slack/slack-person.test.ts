import { describe, expect, it } from 'vitest';
import { commandOrgs, eventOrgs, interactionOrgs } from './slack-person.js';

const installed = (fields: Record<string, unknown> = {}) => ({
  team_id: 'T0HOST',
  authorizations: [{ enterprise_id: null, team_id: 'T0OURS', user_id: 'UBOT', is_bot: true, is_enterprise_install: false }],
  is_ext_shared_channel: false,
  ...fields,
});

describe('eventOrgs', () => {
  it.each([
    ['a message names its author’s workspace (team)', { team: 'T0OURS' }, installed(), ['T0OURS']],
    ['user_team wins over team in a shared channel', { user_team: 'T0GUEST', team: 'T0OURS' }, installed({ is_ext_shared_channel: true }), ['T0GUEST']],
    ['source_team (where it was posted) is never the person’s', { source_team: 'T0OURS' }, installed({ is_ext_shared_channel: true }), []],
    ['a reaction in a channel not shared outside: the installation’s workspace', {}, installed(), ['T0OURS']],
    ['a reaction in a shared channel: none', {}, installed({ is_ext_shared_channel: true }), []],
    ['no word on sharing counts as shared', {}, installed({ is_ext_shared_channel: undefined }), []],
    ['without authorizations, the envelope’s team', {}, installed({ authorizations: undefined }), ['T0HOST']],
    [
      'on Enterprise Grid, a channel not shared outside adds the org to the person’s own workspace',
      { user_team: 'T0SISTER' },
      installed({ authorizations: [{ enterprise_id: 'E0OURS', team_id: 'T0OURS' }] }),
      ['T0SISTER', 'E0OURS'],
    ],
    ['a foreign workspace in a channel not shared outside stays foreign on a single workspace', { team: 'T0GUEST' }, installed(), ['T0GUEST']],
    ['values not shaped as ids are dropped', { user_team: 'evil', team: 7 }, installed({ is_ext_shared_channel: true }), []],
  ])('%s', (_what, event, envelope, expected) => {
    expect(eventOrgs(event, envelope)).toEqual(expected);
  });
});

describe('interactionOrgs', () => {
  it('reads the person’s own workspace, never the team or enterprise the app is installed in', () => {
    const click = { user: { id: 'U1', team_id: 'T0GUEST' }, team: { id: 'T0OURS', enterprise_id: 'E0OURS' }, enterprise: { id: 'E0OURS' } };
    expect(interactionOrgs(click)).toEqual(['T0GUEST']);
    expect(interactionOrgs({ user: { id: 'U1' }, team: { id: 'T0OURS' } })).toEqual([]);
    expect(interactionOrgs(null)).toEqual([]);
  });
});

describe('commandOrgs', () => {
  it('reads the workspace and org the command was typed in', () => {
    expect(commandOrgs({ team_id: 'T0OURS', enterprise_id: 'E0OURS' })).toEqual(['T0OURS', 'E0OURS']);
    expect(commandOrgs({ team_id: 'T0OURS' })).toEqual(['T0OURS']);
  });
});
