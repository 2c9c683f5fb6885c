import { describe, expect, it } from 'vitest';
import { cancelGrant, cancelRefusal, runChannels, starterOf } from './cancel-permission.js';

const run = { anchor: 'slack:C1:1700.1', destinations: ['slack:C1:1700.1', 'slack:C9', 'linear:ENG-1'] };
const ada = { platform: 'slack', id: 'U1', name: '<@U1>' };

describe('/agent cancel <run-id>: who may', () => {
  it.each<[string, { user: string; channel: string }, typeof ada | undefined, string[], string | undefined]>([
    ['anyone in the run’s channel', { user: 'U5', channel: 'C1' }, ada, [], 'here'],
    ['anyone in a channel the run reports to', { user: 'U5', channel: 'C9' }, ada, [], 'here'],
    ['the person who started it, from elsewhere', { user: 'U1', channel: 'C7' }, ada, [], 'starter'],
    ['an admin, from elsewhere', { user: 'UADMIN', channel: 'C7' }, ada, ['UADMIN'], 'admin'],
    ['someone else, from elsewhere', { user: 'U5', channel: 'C7' }, ada, ['UADMIN'], undefined],
    ['a Linear user id that happens to match is not a Slack starter', { user: 'U1', channel: 'C7' }, { ...ada, platform: 'linear' }, [], undefined],
    ['no known starter, from elsewhere', { user: 'U1', channel: 'C7' }, undefined, [], undefined],
  ])('%s', (_what, ask, starter, admins, grant) => {
    expect(cancelGrant(ask, run, starter, admins)).toBe(grant);
  });

  it('lists the channels of a run (anchor and destinations, once each)', () => {
    expect(runChannels(run)).toEqual(['C1', 'C9']);
    expect(runChannels({ anchor: 'slack:C2:cmd-123', destinations: ['slack:C2'] })).toEqual(['C2']);
  });

  it('reads the starter from the stored trigger, defensively', () => {
    expect(starterOf({ payload: { requester: ada } })).toEqual(ada);
    expect(starterOf({ payload: { requester: { id: 5 } } })).toBeUndefined();
    expect(starterOf({ payload: null })).toBeUndefined();
    expect(starterOf(undefined)).toBeUndefined();
  });

  it('tells the person who may, and where', () => {
    expect(cancelRefusal('run_1', run, ada)).toBe(
      'You cannot stop `run_1` from here. A run can be stopped from its channel (<#C1>, <#C9>), by the person who started it (<@U1>), or by an admin (console.admins). Nothing was changed.',
    );
  });
});
