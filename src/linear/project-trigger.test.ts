import { describe, expect, it } from 'vitest';
import {
  FIXTURE_PROJECTS,
  LINEAR_IDS,
  inProject,
  issueCreated,
  labelAdded,
  labelRemoved,
  projectChanged,
  type LinearEnvelopeFixture,
} from '../../test/fixtures/linear/index.js';
import { labelTrigger, type LinearTriggerConfig } from './normalise.js';
import { parseLinearWebhook, type LinearWebhook } from './parse-webhook.js';
import { projectRoute } from './project-trigger.js';

const { checkout, docs } = FIXTURE_PROJECTS;
const { agent, bug } = LINEAR_IDS.labels;
const DELIVERY = '7c1f3a2e-1111-4222-8333-444455556666';

const config = (overrides: Partial<LinearTriggerConfig> = {}): LinearTriggerConfig => ({
  handle: '@agent',
  followups: 'mentions',
  cancelOnLabelRemoved: true,
  labels: { agent: {}, web: { config: { environment_id: 'env_web' } } },
  // One route by id, one by name (written in another case than Linear's).
  projects: { web: ['checkout REVAMP'], agent: [docs.id] },
  companions: { web: ['slack:C0WEB00001'] },
  teams: [],
  ...overrides,
});

function parsed(fixture: LinearEnvelopeFixture): LinearWebhook {
  const result = parseLinearWebhook(JSON.stringify(fixture));
  if (!result.ok) throw new Error(result.reason);
  return result.envelope;
}

describe('projectRoute', () => {
  it.each([
    [{ id: checkout.id, name: 'Checkout revamp' }, 'web'],
    [{ id: docs.id }, 'agent'],
    [{ id: 'another-id', name: 'Docs' }, undefined],
    [{ id: checkout.id }, undefined],
  ])('%j is routed by %s', (project, route) => {
    expect(projectRoute(config().projects, project)).toBe(route);
  });
});

describe('labelTrigger: routes that match by project', () => {
  it('an issue moved into a routed project starts a run under that route, as its label would', () => {
    const fixture = projectChanged(null, checkout, { id: 'issue-1', identifier: 'ENG-7', updatedAt: '2026-03-04T10:00:00.000Z' });
    expect(labelTrigger(parsed(fixture), config(), DELIVERY)).toMatchObject({
      kind: 'start',
      key: `linear:project:issue-1:${checkout.id}:2026-03-04T10:00:00.000Z`,
      anchor: 'linear:issue-1',
      payload: {
        origin: { source: 'linear', label: 'web' },
        destinations: ['linear:issue-1', 'slack:C0WEB00001'],
        reference: { issueId: 'issue-1', projectId: checkout.id, deliveryId: DELIVERY },
        unlessActive: true,
        title: expect.stringMatching(/^ENG-7: /),
      },
    });
  });

  it.each([
    ['created in a routed project (by id)', issueCreated({ labels: [], ...inProject(docs) }), 'agent'],
    ['moved between two routed projects', projectChanged(docs, checkout), 'web'],
    ['created with a trigger label in a routed project (the label wins, once)', issueCreated({ labels: [agent], ...inProject(checkout) }), 'Agent'],
    ['given a trigger label in a routed project it was already in', labelAdded(agent, [bug], inProject(checkout)), 'Agent'],
  ])('%s starts one run', (_name, fixture, label) => {
    const trigger = labelTrigger(parsed(fixture), config(), DELIVERY);
    expect(trigger?.kind).toBe('start');
    expect(trigger?.kind === 'start' && trigger.payload.origin).toMatchObject({ label });
  });

  it.each([
    ['created in a project no route lists', issueCreated({ labels: [], ...inProject({ id: 'p-9', name: 'Ops', url: 'https://linear.app/acme/project/ops' }) })],
    ['created in no project', issueCreated({ labels: [], ...inProject(null) })],
    ['moved out of a routed project (leaving stops nothing)', projectChanged(checkout, null)],
    ['edited while in a routed project (no move)', labelAdded(bug, [], inProject(checkout))],
    ['in a routed project of a team not allowed', projectChanged(null, checkout, { team: { id: 't', key: 'OPS' } })],
  ])('%s starts nothing', (_name, fixture) => {
    expect(labelTrigger(parsed(fixture), config({ teams: ['ENG'] }), DELIVERY)).toBeUndefined();
  });

  it('losing a trigger label while in a routed project still cancels', () => {
    expect(labelTrigger(parsed(labelRemoved(agent, [bug], inProject(checkout))), config(), DELIVERY)?.kind).toBe('cancel');
  });

  it('the same move re-sent under another delivery id has the same key', () => {
    const fixture = projectChanged(null, checkout);
    const first = labelTrigger(parsed(fixture), config(), 'delivery-1');
    const again = labelTrigger(parsed({ ...fixture, webhookTimestamp: Number(fixture.webhookTimestamp) + 3_600_000 }), config(), 'delivery-2');
    expect(again?.key).toBe(first?.key);
  });

  it.each([
    ['a project id that is not a string', { data: { projectId: 7 } }, 'data.projectId must be a string'],
    ['a project that is not an object', { data: { project: 'Checkout' } }, 'data.project must be an object'],
    ['a project name that is not a string', { data: { project: { id: 'p', name: 1 } } }, 'data.project.name must be a string'],
    ['a previous project id that is not a string', { updatedFrom: { projectId: ['p'] } }, 'updatedFrom.projectId must be a string or null'],
  ])('refuses %s, naming the field', (_name, change: { data?: object; updatedFrom?: object }, reason) => {
    const fixture = projectChanged(null, checkout);
    const bad = { ...fixture, data: { ...fixture.data, ...change.data }, updatedFrom: { ...fixture.updatedFrom, ...change.updatedFrom } };
    expect(parseLinearWebhook(JSON.stringify(bad))).toEqual({ ok: false, reason });
  });
});
