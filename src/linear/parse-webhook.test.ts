import { describe, expect, it } from 'vitest';
import {
  LINEAR_IDS,
  botComment,
  commentCreated,
  envelope,
  issueCreated,
  labelAdded,
  linearEvilBodies,
  type LinearEnvelopeFixture,
} from '../../test/fixtures/linear/index.js';
import { isCommentWebhook, isIssueWebhook, parseLinearWebhook, type LinearWebhook } from './parse-webhook.js';
import { checkWebhookTimestamp } from './verify-webhook.js';

const NOW = 1_772_441_700_000;

function parsed(fixture: LinearEnvelopeFixture | string): LinearWebhook {
  const result = parseLinearWebhook(typeof fixture === 'string' ? fixture : JSON.stringify(fixture));
  if (!result.ok) throw new Error(`expected ok, got ${result.reason}`);
  return result.envelope;
}

const withData = (fixture: LinearEnvelopeFixture, data: Record<string, unknown>) => JSON.stringify({ ...fixture, data: { ...fixture.data, ...data } });

describe('parseLinearWebhook: Issue events', () => {
  it('keeps the fields we act on and drops the rest', () => {
    const fixture = issueCreated({ identifier: 'ENG-7', title: 'Fix it', labels: [LINEAR_IDS.labels.agent, LINEAR_IDS.labels.bug] }, { now: NOW });
    const envelope = parsed(fixture);
    expect(isIssueWebhook(envelope)).toBe(true);
    expect(envelope).toEqual({
      action: 'create',
      type: 'Issue',
      url: fixture.url,
      organizationId: LINEAR_IDS.organization,
      webhookId: LINEAR_IDS.webhook,
      webhookTimestamp: NOW,
      actor: { id: LINEAR_IDS.user.id, name: LINEAR_IDS.user.name, type: 'user' },
      data: {
        id: fixture.data['id'],
        identifier: 'ENG-7',
        title: 'Fix it',
        description: fixture.data['description'],
        url: fixture.data['url'],
        teamId: LINEAR_IDS.team.id,
        team: { key: 'ENG' },
        labelIds: [LINEAR_IDS.labels.agent.id, LINEAR_IDS.labels.bug.id],
        labels: [
          { id: LINEAR_IDS.labels.agent.id, name: 'Agent' },
          { id: LINEAR_IDS.labels.bug.id, name: 'Bug' },
        ],
        updatedAt: '2026-03-02T09:15:00.000Z',
      },
    });
  });

  it('keeps updatedFrom.labelIds of an update', () => {
    const envelope = parsed(labelAdded());
    expect(envelope.updatedFrom).toEqual({ labelIds: [LINEAR_IDS.labels.bug.id], updatedAt: '2026-03-02T09:00:00.000Z' });
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['null description, team, teamId and labels count as absent', { description: null, team: null, teamId: null, labels: null }, {}],
    ['a missing description is fine', { description: undefined }, {}],
    ['an empty label list is fine', { labelIds: [], labels: [] }, { labelIds: [], labels: [] }],
  ])('%s', (_what, data, expected) => {
    const envelope = parsed(withData(issueCreated({}, { now: NOW }), data));
    if (!isIssueWebhook(envelope)) throw new Error('not an issue');
    for (const key of Object.keys(data)) if (!(key in expected)) expect(envelope.data).not.toHaveProperty(key);
    expect(envelope.data).toMatchObject(expected);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['id missing', { id: undefined }, 'data.id must be a string'],
    ['identifier a number', { identifier: 123 }, 'data.identifier must be a string'],
    ['title missing', { title: undefined }, 'data.title must be a string'],
    ['title null', { title: null }, 'data.title must be a string'],
    ['url an object', { url: { href: 'x' } }, 'data.url must be a string'],
    ['description a number', { description: 5 }, 'data.description must be a string'],
    ['teamId a number', { teamId: 5 }, 'data.teamId must be a string'],
    ['team a string', { team: 'ENG' }, 'data.team must be an object'],
    ['team without key', { team: { id: 't' } }, 'data.team.key must be a string'],
    ['labelIds missing', { labelIds: undefined }, 'data.labelIds must be an array of strings'],
    ['labelIds a string', { labelIds: 'l1' }, 'data.labelIds must be an array of strings'],
    ['labelIds with a number', { labelIds: ['l1', 2] }, 'data.labelIds must be an array of strings'],
    ['labels an object', { labels: { id: 'l1' } }, 'data.labels must be an array of labels'],
    ['a label a string', { labels: ['agent'] }, 'data.labels[0] must be an object'],
    ['a label without name', { labels: [{ id: 'l1', name: 'a' }, { id: 'l2' }] }, 'data.labels[1].name must be a string'],
    ['updatedAt missing', { updatedAt: undefined }, 'data.updatedAt must be a string'],
  ])('rejects %s', (_what, data, reason) => {
    expect(parseLinearWebhook(withData(issueCreated({}, { now: NOW }), data))).toEqual({ ok: false, reason });
  });

  it.each<[string, unknown, string]>([
    ['labelIds a string', { labelIds: 'l1' }, 'updatedFrom.labelIds must be an array of strings'],
    ['labels not labels', { labels: [1] }, 'updatedFrom.labels[0] must be an object'],
    ['updatedAt a number', { updatedAt: 1 }, 'updatedFrom.updatedAt must be a string'],
    ['updatedFrom an array', [], 'body.updatedFrom must be an object'],
  ])('rejects updatedFrom with %s', (_what, updatedFrom, reason) => {
    expect(parseLinearWebhook(JSON.stringify({ ...labelAdded(), updatedFrom }))).toEqual({ ok: false, reason });
  });
});

describe('parseLinearWebhook: Comment events', () => {
  it('keeps the fields we act on', () => {
    const fixture = commentCreated('@agent use pnpm', {}, { now: NOW });
    const envelope = parsed(fixture);
    expect(isCommentWebhook(envelope)).toBe(true);
    expect(envelope.data).toEqual({
      id: fixture.data['id'],
      body: '@agent use pnpm',
      issueId: '0a1b2c3d-0000-4000-8000-00000issue01',
      issue: {
        id: '0a1b2c3d-0000-4000-8000-00000issue01',
        identifier: 'ENG-101',
        title: 'Fix the flaky login test',
        url: expect.stringContaining('/issue/ENG-101/'),
      },
      userId: LINEAR_IDS.user.id,
      user: { id: LINEAR_IDS.user.id, name: LINEAR_IDS.user.name },
    });
  });

  it('keeps botActor', () => {
    expect(parsed(botComment('Run started')).data).toMatchObject({ botActor: { type: 'oauthClient' } });
  });

  it.each<[string, Record<string, unknown>]>([
    ['botActor null is absent', { botActor: null }],
    ['a comment on a document has no issue', { issueId: undefined, issue: undefined, documentContentId: 'd1' }],
    ['user null is absent', { user: null, userId: null }],
  ])('%s', (_what, data) => {
    const envelope = parsed(withData(commentCreated('hi'), data));
    for (const key of Object.keys(data)) expect(envelope.data).not.toHaveProperty(key === 'documentContentId' ? 'issue' : key);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['body missing', { body: undefined }, 'data.body must be a string'],
    ['body a number', { body: 1 }, 'data.body must be a string'],
    ['issueId a number', { issueId: 1 }, 'data.issueId must be a string'],
    ['issue a string', { issue: 'ENG-1' }, 'data.issue must be an object'],
    ['issue.identifier a number', { issue: { identifier: 1 } }, 'data.issue.identifier must be a string'],
    ['userId an object', { userId: {} }, 'data.userId must be a string'],
    ['user.name a number', { user: { id: 'u', name: 1 } }, 'data.user.name must be a string'],
    ['botActor true', { botActor: true }, 'data.botActor must be an object'],
  ])('rejects %s', (_what, data, reason) => {
    expect(parseLinearWebhook(withData(commentCreated('hi'), data))).toEqual({ ok: false, reason });
  });
});

describe('parseLinearWebhook: envelopes', () => {
  it.each<[string, string, string]>([
    ['not JSON', '{"action":', 'body is not JSON'],
    ['empty', '', 'body is not JSON'],
    ['an array', '[]', 'body must be a JSON object'],
    ['null', 'null', 'body must be a JSON object'],
    ['no action', JSON.stringify({ ...issueCreated(), action: undefined }), 'body.action must be a string'],
    ['no type', JSON.stringify({ ...issueCreated(), type: undefined }), 'body.type must be a string'],
    ['no data', JSON.stringify({ ...issueCreated(), data: undefined }), 'body.data must be an object'],
    ['data null', JSON.stringify({ ...issueCreated(), data: null }), 'body.data must be an object'],
    ['data an array', JSON.stringify({ ...issueCreated(), data: [] }), 'body.data must be an object'],
    ['no webhookTimestamp', JSON.stringify({ ...issueCreated(), webhookTimestamp: undefined }), 'body.webhookTimestamp must be a number'],
    ['webhookTimestamp a string', JSON.stringify({ ...issueCreated(), webhookTimestamp: '1' }), 'body.webhookTimestamp must be a number'],
    ['url a number', JSON.stringify({ ...issueCreated(), url: 1 }), 'body.url must be a string'],
    ['organizationId an object', JSON.stringify({ ...issueCreated(), organizationId: {} }), 'body.organizationId must be a string'],
  ])('rejects %s', (_what, text, reason) => {
    expect(parseLinearWebhook(text)).toEqual({ ok: false, reason });
  });

  it.each<[string, LinearEnvelopeFixture]>([
    ['a Project update', envelope('Project', 'update', { id: 'p1', name: 12 })],
    ['an app notification', envelope('AppUserNotification', 'issueMention', { id: 'n1' })],
    ['an Issue with an unknown action', { ...issueCreated(), action: 'restore', data: { id: 1 } }],
  ])('accepts %s without checking its data, as neither an Issue nor a Comment', (_what, fixture) => {
    const envelope = parsed(fixture);
    expect(isIssueWebhook(envelope) || isCommentWebhook(envelope)).toBe(false);
    expect(envelope.data).toEqual(fixture.data);
  });

  it('drops an actor it cannot use instead of rejecting', () => {
    expect(parsed({ ...issueCreated(), actor: 'someone' })).not.toHaveProperty('actor');
  });

  it('does not pollute prototypes', () => {
    const text = JSON.stringify(issueCreated()).replace('{', '{"__proto__":{"polluted":"yes"},').replace('"data":{', '"data":{"__proto__":{"isAdmin":true},');
    const envelope = parsed(text);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect((envelope.data as Record<string, unknown>)['isAdmin']).toBeUndefined();
  });
});

describe('evil fixtures', () => {
  const bodies = linearEvilBodies(NOW);
  it.each(bodies.filter((body) => body.expect === 'reject').map((body) => [body.name, body] as const))('%s is rejected, naming the field', (_name, body) => {
    const result = parseLinearWebhook(body.body);
    expect(result.ok).toBe(false);
    if (!result.ok && body.field) expect(result.reason).toContain(body.field);
  });

  it.each(bodies.filter((body) => body.expect === 'unauthorized').map((body) => [body.name, body] as const))('%s fails the timestamp check', (_name, body) => {
    const raw = JSON.parse(body.body) as Record<string, unknown>;
    expect(checkWebhookTimestamp(raw['webhookTimestamp'], NOW)).not.toBe('ok');
  });

  it.each(bodies.filter((body) => ['ignore', 'handle', 'too_large'].includes(body.expect)).map((body) => [body.name, body] as const))(
    '%s parses (what happens next is the caller’s)',
    (_name, body) => {
      const result = parseLinearWebhook(body.body);
      if (body.name === 'deeply-nested-unknown' && !result.ok) return; // 400 is acceptable too
      expect(result.ok).toBe(true);
      if (result.ok) expect(checkWebhookTimestamp(result.envelope.webhookTimestamp, NOW)).toBe('ok');
    },
  );

  it('never answers a 5xx', () => {
    for (const body of bodies) expect(body.statuses.every((status) => status < 500)).toBe(true);
  });
});
