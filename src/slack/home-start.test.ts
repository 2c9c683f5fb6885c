import { describe, expect, it } from 'vitest';
import { readStartRunSubmission, startRunTrigger, submissionErrors } from './home-start.js';
import { homeUserOf, routeChoices, startRunModal, whereAsked } from './home-view.js';

const values = (text: unknown, route?: unknown) => ({
  request: { text: { value: text } },
  ...(route !== undefined && { route: { route: { selected_option: { value: route } } } }),
});
const body = (state: unknown, view: Record<string, unknown> = {}) => ({
  user: { id: 'U1', team_id: 'T1' },
  team: { id: 'T0HOST' },
  view: { id: 'V1', state: { values: state }, ...view },
});

describe('readStartRunSubmission', () => {
  it.each([
    ['the request and the route', body(values('fix it', 'C1')), { user: 'U1', orgs: ['T1'], viewId: 'V1', text: 'fix it', route: 'C1' }],
    ['no route offered', body(values('fix it')), { user: 'U1', orgs: ['T1'], viewId: 'V1', text: 'fix it', route: undefined }],
    ['an empty request field', body({}), { user: 'U1', orgs: ['T1'], viewId: 'V1', text: '', route: undefined }],
    ['a request that is not text', body(values(42, 7)), { user: 'U1', orgs: ['T1'], viewId: 'V1', text: '', route: undefined }],
    ['no view id', body(values('x'), { id: 3 }), undefined],
    ['no user', { view: { id: 'V1' } }, undefined],
    ['an array body', [], undefined],
    ['null', null, undefined],
  ])('%s', (_name, input, expected) => {
    expect(readStartRunSubmission(input)).toEqual(expected);
  });
});

describe('the Start a run modal', () => {
  const choices = routeChoices({ C0123ABCD: { config: { name: 'web' } }, '*': {} });

  it('offers the default and one route per channel entry; the select only when there is a choice', () => {
    expect(choices).toEqual([
      { value: '*', label: 'Default' },
      { value: 'C0123ABCD', label: 'as in C0123ABCD (web)' },
    ]);
    expect(JSON.stringify(startRunModal(choices))).toContain('"block_id":"route"');
    expect(JSON.stringify(startRunModal(routeChoices({})))).not.toContain('"block_id":"route"');
  });

  it.each([
    ['an empty request', { text: ' \n ', route: '*' }, { request: 'Say what the agent should do.' }],
    ['a route not offered', { text: 'go', route: 'C0999' }, { route: 'Pick one of the routes listed.' }],
    ['a valid one', { text: 'go', route: 'C0123ABCD' }, undefined],
    ['no route when none was offered', { text: 'go', route: undefined }, undefined],
  ])('%s', (_name, fields, expected) => {
    expect(submissionErrors({ user: 'U1', orgs: ['T1'], viewId: 'V1', ...fields }, choices)).toEqual(expected);
  });

  it('starts a run keyed by the view, in the person’s direct message, on the picked route', () => {
    expect(startRunTrigger({ user: 'U1', orgs: ['T1'], viewId: 'V9', text: ' Write docs\nfor 2.0 ', route: 'C0123ABCD' })).toMatchObject({
      key: 'slack:view:V9',
      anchor: 'slack:U1:home-V9',
      payload: { prompt: 'Write docs\nfor 2.0', title: 'Write docs', origin: { source: 'slack', channel: 'C0123ABCD' }, destinations: ['slack:U1'] },
    });
  });
});

describe('Home places', () => {
  it.each([
    ['slack:home:U0123ABCD', 'U0123ABCD'],
    ['slack:home:W0123ABCD', 'W0123ABCD'],
    ['slack:home:C0123ABCD', undefined],
    ['slack:C0123ABCD:1.2', undefined],
    ['slack:home:U1:extra', undefined],
  ])('%s is the Home tab of %s', (destination, user) => {
    expect(homeUserOf(destination)).toBe(user);
  });

  it.each([
    ['slack:C0123ABCD:1.2', '<#C0123ABCD>'],
    ['slack:G0123ABCD:1.2', '<#G0123ABCD>'],
    ['slack:D0123ABCD:1.2', 'a direct message'],
    ['slack:U0123ABCD:home-V1', 'a direct message'],
  ])('a run anchored at %s was asked in %s', (anchor, where) => {
    expect(whereAsked(anchor)).toBe(where);
  });
});
