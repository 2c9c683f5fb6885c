import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, newSigningToken, type Tamper } from './gitlab-webhooks.js';
import {
  confidentialIssueOpened,
  diffNote,
  discussionReply,
  ghostNote,
  botNote,
  gitlabEvilDeliveries,
  issueLabelled,
  issueNote,
  issueUnlabelled,
  mergeRequestClosed,
  mergeRequestMerged,
  mergeRequestNote,
  pipelineFailed,
  GITLAB_IDS,
} from '../fixtures/gitlab/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NOW = Date.parse('2026-03-02T12:00:00.000Z');

// A receiver that keeps each request as it came, to check deliveries from outside.
const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(200).end();
  });
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/gitlab/webhook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

/** The Standard Webhooks check, written from the spec (https://www.standardwebhooks.com/), not from the fake. */
function standardWebhookValid(secret: string, headers: IncomingHttpHeaders, body: string, nowSeconds: number): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

describe('deliver: webhooks as GitLab posts them', () => {
  it('sends the secret token and GitLab’s delivery headers; a retry keeps its Idempotency-Key, a second hook of one action shares the Event-UUID', async () => {
    const first = await deliver(url, issueLabelled(7, 'agent'), { secret: 's3cret', instance: 'https://gitlab.example.com' });
    expect(first.response.status).toBe(200);
    const got = received.at(-1)!;
    expect(got.body).toBe(first.body);
    expect(got.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': expect.stringMatching(/^GitLab\/\d+\.\d+\.\d+/),
      'x-gitlab-event': 'Issue Hook',
      'x-gitlab-token': 's3cret',
      'x-gitlab-instance': 'https://gitlab.example.com',
      'idempotency-key': expect.stringMatching(UUID),
      'x-gitlab-event-uuid': expect.stringMatching(UUID),
      'x-gitlab-webhook-uuid': expect.stringMatching(UUID),
    });
    expect(got.headers['webhook-signature']).toBeUndefined();
    await deliver(url, issueLabelled(7, 'agent'), { secret: 's3cret', idempotencyKey: first.idempotencyKey, eventUuid: first.eventUuid });
    const retry = received.at(-1)!;
    expect(retry.headers['idempotency-key']).toBe(first.idempotencyKey);
    expect(retry.headers['x-gitlab-webhook-uuid']).not.toBe(got.headers['x-gitlab-webhook-uuid']);
    await deliver(url, issueNote(7, '/label ~agent'), { secret: 's3cret', eventUuid: first.eventUuid });
    expect(received.at(-1)!.headers['x-gitlab-event-uuid']).toBe(first.eventUuid);
    expect(received.at(-1)!.headers['idempotency-key']).not.toBe(first.idempotencyKey);
  });

  it('signs with a whsec_ token as Standard Webhooks: webhook-id is the Idempotency-Key and the signature verifies', async () => {
    const secret = newSigningToken();
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    const sent = await deliver(url, mergeRequestMerged(5), { secret, signing: 'standard-webhooks', now: NOW });
    const got = received.at(-1)!;
    expect(got.headers['webhook-id']).toBe(sent.idempotencyKey);
    expect(got.headers['webhook-timestamp']).toBe(String(NOW / 1000));
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(got.headers['x-gitlab-token']).toBeUndefined();
    expect(standardWebhookValid(secret, got.headers, got.body, NOW / 1000)).toBe(true);
  });

  it('tampers so a receiver can be shown refusing: each evil variant fails the check the good one passes', async () => {
    const secret = newSigningToken();
    const verdict = async (tamper: Tamper) => {
      await deliver(url, diffNote(5, '@agent fix this'), { secret, signing: 'standard-webhooks', now: NOW, tamper });
      const got = received.at(-1)!;
      return standardWebhookValid(secret, got.headers, got.body, NOW / 1000);
    };
    for (const tamper of ['bad-signature', 'tampered-body', 'stale-timestamp', 'future-timestamp', 'no-signature', 'unknown-version'] as const) {
      expect([tamper, await verdict(tamper)]).toEqual([tamper, false]);
    }
    await deliver(url, diffNote(5, '@agent'), { secret, signing: 'standard-webhooks', now: NOW, tamper: 'stale-timestamp' });
    expect(Number(received.at(-1)!.headers['webhook-timestamp'])).toBe(NOW / 1000 - 600);
    await deliver(url, issueNote(7, '@agent'), { secret: 's3cret', tamper: 'wrong-token' });
    expect(received.at(-1)!.headers['x-gitlab-token']).not.toBe('s3cret');
    await deliver(url, issueNote(7, '@agent'), { secret: 's3cret', tamper: 'no-token' });
    expect(received.at(-1)!.headers['x-gitlab-token']).toBeUndefined();
  });
});

describe('GitLab webhook fixtures (as GitLab documents the payloads)', () => {
  it('says a label change in changes.labels {previous, current} with label titles', () => {
    const added = issueLabelled(7, 'agent', ['bug']).body as {
      object_attributes: { action: string; iid: number };
      changes: { labels: { previous: Array<{ title: string }>; current: Array<{ title: string }> } };
    };
    expect(added.object_attributes).toMatchObject({ action: 'update', iid: 7 });
    expect([added.changes.labels.previous.map((l) => l.title), added.changes.labels.current.map((l) => l.title)]).toEqual([['bug'], ['bug', 'agent']]);
    const removed = issueUnlabelled(7, 'agent', ['agent', 'bug']).body as typeof added;
    expect(removed.changes.labels.current.map((l) => l.title)).toEqual(['bug']);
  });

  it('sends confidential issues and notes under their own hooks', () => {
    expect(confidentialIssueOpened(8).hook).toBe('Confidential Issue Hook');
    expect(confidentialIssueOpened(8).body).toMatchObject({ event_type: 'confidential_issue', object_attributes: { confidential: true } });
    expect(issueNote(8, 'x', { confidentialIssue: true })).toMatchObject({ hook: 'Confidential Note Hook', body: { event_type: 'confidential_note' } });
    expect(issueNote(8, 'x').hook).toBe('Note Hook');
  });

  it('gives a diff note its position and thread, a reply the same thread, and other notes their noteable', () => {
    const diff = diffNote(5, '@agent rename', { path: 'src/auth.ts', newLine: 12 });
    const attributes = diff.body['object_attributes'] as { type: string; discussion_id: string; noteable_type: string; position: Record<string, unknown> };
    expect(attributes).toMatchObject({
      type: 'DiffNote',
      noteable_type: 'MergeRequest',
      position: { new_path: 'src/auth.ts', new_line: 12, position_type: 'text' },
    });
    expect(attributes.discussion_id).toMatch(/^[0-9a-f]{40}$/);
    const reply = discussionReply(5, 'and here', attributes.discussion_id);
    expect(reply.body['object_attributes']).toMatchObject({ type: 'DiscussionNote', discussion_id: attributes.discussion_id });
    expect(mergeRequestNote(5, 'hi').body).toMatchObject({ merge_request: { iid: 5 }, object_attributes: { type: null, noteable_type: 'MergeRequest' } });
    expect(botNote(7, 'beep').body['user']).toMatchObject({ username: expect.stringMatching(/^project_\d+_bot_/) });
    expect(ghostNote(7, 'boo').body['user']).toMatchObject({ username: 'ghost' });
  });

  it('marks a merge and a close, and names a failed pipeline’s failed jobs in builds with its merge request', () => {
    expect(mergeRequestMerged(5).body['object_attributes']).toMatchObject({ action: 'merge', state: 'merged', iid: 5 });
    expect(mergeRequestClosed(5).body['object_attributes']).toMatchObject({ action: 'close', state: 'closed' });
    const failed = pipelineFailed(5).body as {
      object_attributes: { status: string };
      merge_request: { iid: number };
      builds: Array<{ name: string; status: string; allow_failure: boolean }>;
    };
    expect([failed.object_attributes.status, failed.merge_request.iid]).toEqual(['failed', 5]);
    expect(failed.builds.filter((b) => b.status === 'failed' && !b.allow_failure).map((b) => b.name)).toEqual(['unit-tests']);
    expect(pipelineFailed(5).body['project']).toMatchObject({ path_with_namespace: GITLAB_IDS.project.path });
  });

  it('lists evil deliveries with unique names, never a 5xx, over 1 MiB only when too_large', () => {
    const evil = gitlabEvilDeliveries();
    expect(new Set(evil.map((e) => e.name)).size).toBe(evil.length);
    for (const entry of evil) {
      expect(entry.statuses.every((s) => s < 500)).toBe(true);
      expect([entry.name, Buffer.byteLength(entry.body) > 1024 * 1024]).toEqual([entry.name, entry.expect === 'too_large']);
      // A reject naming a field is valid JSON, so only that field is at fault.
      if (entry.field !== undefined) expect(() => JSON.parse(entry.body) as unknown).not.toThrow();
    }
    expect(evil.map((e) => e.expect)).toEqual(expect.arrayContaining(['reject', 'too_large', 'ignore', 'handle']));
  });
});
