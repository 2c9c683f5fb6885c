import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunItem } from '../core/ports/agent-runs.js';
import { creatorUidFor, startEmulator, type RunningEmulator } from './index.js';
import type { RequestLogEntry } from './traffic.js';

const KEY = 'secret-testing-key';

let emu: RunningEmulator;

function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${emu.baseUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...init.headers },
  });
}

/** What these tests read from a testing endpoint's answer: the request log, the faults, a run, or a problem's `detail`. */
type ControlBody = Partial<RunItem> & { requests?: RequestLogEntry[]; faults?: unknown[]; detail?: string };

async function control(method: string, path: string, body?: unknown): Promise<{ status: number; body: ControlBody | undefined }> {
  const res = await fetch(`${emu.url}/_emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as ControlBody) : undefined };
}

beforeEach(async () => {
  emu = await startEmulator({ apiKey: KEY, manual: true });
});

afterEach(async () => {
  await emu.close();
});

describe('fault injection', () => {
  it('answers the next requests with the status, Retry-After and a problem body', async () => {
    expect((await control('POST', '/faults', { count: 2, status: 429, retry_after: 7 })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await api('/agent/runs');
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('7');
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(await res.json()).toMatchObject({ status: 429, error: 'resource_unavailable', retryable: true });
    }
    expect((await api('/agent/runs')).status).toBe(200);
  });

  it('uses the given error code and detail, and queues faults in order', async () => {
    await control('POST', '/faults', { count: 1, status: 503, error: 'maintenance', detail: 'back soon' });
    await control('POST', '/faults', { count: 1, status: 500 });
    const first = await api('/agent/runs');
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBeNull();
    expect(await first.json()).toMatchObject({ error: 'maintenance', detail: 'back soon', retryable: true });
    const second = await api('/agent/runs');
    expect(second.status).toBe(500);
    expect(await second.json()).toMatchObject({ error: 'internal_error' });
    expect((await api('/agent/runs')).status).toBe(200);
  });

  it('status 0 destroys the socket without an answer', async () => {
    await control('POST', '/faults', { count: 1, status: 0 });
    await expect(api('/agent/run', { method: 'POST', body: JSON.stringify({ prompt: 'p' }) })).rejects.toThrow();
    expect(emu.engine.list().runs).toHaveLength(0);
    expect((await api('/agent/runs')).status).toBe(200);
    const log = (await control('GET', '/requests')).body?.requests;
    expect(log?.map((r) => r.status)).toEqual([0, 200]);
  });

  it('delay_ms holds the answer long enough for a client timeout', async () => {
    await control('POST', '/faults', { count: 1, delay_ms: 5000 });
    const started = Date.now();
    await expect(api('/agent/runs', { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(4000);
    // The next request is not delayed.
    expect((await api('/agent/runs')).status).toBe(200);
  });

  it('close() does not wait for a held answer', async () => {
    await control('POST', '/faults', { count: 1, status: 503, delay_ms: 60_000 });
    const pending = api('/agent/runs').catch((error: unknown) => error);
    await expect.poll(async () => (await control('GET', '/requests')).body?.requests?.length).toBe(1);
    await emu.close();
    expect(await pending).toBeInstanceOf(Error);
  });

  it('DELETE clears pending faults; the testing endpoints are never faulted', async () => {
    await control('POST', '/faults', { count: 5, status: 503 });
    expect((await control('GET', '/faults')).body?.faults).toHaveLength(1);
    expect((await control('DELETE', '/faults')).status).toBe(200);
    expect((await api('/agent/runs')).status).toBe(200);
  });

  it.each([
    [{ count: 0, status: 503 }, 'count'],
    [{ count: 1, status: 99 }, 'status'],
    [{ count: 1, status: 'x' }, 'status'],
    [{ count: 1, status: 503, delay_ms: -1 }, 'delay_ms'],
    [{ count: 1 }, 'status'],
  ])('rejects the fault %j', async (fault, field) => {
    const answer = await control('POST', '/faults', fault);
    expect(answer.status).toBe(400);
    expect(answer.body?.detail).toContain(field);
  });
});

describe('request log and reset', () => {
  it('records every API request in order, without the Authorization header', async () => {
    await api('/agent/run', { method: 'POST', body: JSON.stringify({ prompt: 'p' }) });
    await api('/agent/runs?state=QUEUED&state=INPROGRESS&limit=5');
    await fetch(`${emu.baseUrl}/agent/runs`);
    await api('/agent/runs?limit=0');
    const log = (await control('GET', '/requests')).body?.requests;
    expect(log).toEqual([
      { method: 'POST', path: '/api/v1/agent/run', query: {}, at: expect.any(String), status: 200, creator: creatorUidFor(KEY) },
      {
        method: 'GET',
        path: '/api/v1/agent/runs',
        query: { state: ['QUEUED', 'INPROGRESS'], limit: '5' },
        at: expect.any(String),
        status: 200,
        creator: creatorUidFor(KEY),
      },
      { method: 'GET', path: '/api/v1/agent/runs', query: {}, at: expect.any(String), status: 401, creator: null },
      { method: 'GET', path: '/api/v1/agent/runs', query: { limit: '0' }, at: expect.any(String), status: 400, creator: creatorUidFor(KEY) },
    ]);
    expect(JSON.stringify(log)).not.toContain(KEY);
  });

  it('reset clears runs, faults and the request log', async () => {
    await api('/agent/run', { method: 'POST', body: JSON.stringify({ prompt: 'p' }) });
    await control('POST', '/faults', { count: 3, status: 503 });
    expect((await control('POST', '/reset')).status).toBe(200);
    expect(emu.engine.list().runs).toEqual([]);
    expect((await control('GET', '/requests')).body?.requests).toEqual([]);
    expect((await api('/agent/runs')).status).toBe(200);
  });
});

describe('driving runs', () => {
  it('drives a run to any state, with a status message and artifacts', async () => {
    const id = emu.engine.createRun({ prompt: 'p' }).run_id;
    const unknown = await control('POST', `/runs/${id}/state`, { state: 'WAITING_FOR_REVIEW' });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ run_id: id, state: 'WAITING_FOR_REVIEW', status_message: { message: 'Waiting for review' } });

    const failed = await control('POST', `/runs/${id}/state`, {
      state: 'FAILED',
      status_message: { message: 'tests are red', error_code: 'tests_failed', retryable: false },
      artifacts: [{ artifact_type: 'PLAN', data: { text: 'plan' } }],
    });
    const run = (await (await api(`/agent/runs/${id}`)).json()) as RunItem;
    expect(run).toMatchObject({
      state: 'FAILED',
      status_message: { message: 'tests are red', error_code: 'tests_failed', retryable: false },
      // An artifact driven without created_at is dated when it was set.
      artifacts: [{ artifact_type: 'PLAN', created_at: run.updated_at, data: { text: 'plan' } }],
    });
    expect(failed.body?.state).toBe('FAILED');
  });

  it('drive gives FAILED and ERROR their default structured messages', () => {
    const id = emu.engine.createRun({ prompt: 'p' }).run_id;
    // A failure the agent reports has no platform error code (the SDK's codes are platform errors).
    expect(emu.engine.drive(id, 'FAILED').status_message).toEqual({ message: expect.any(String), retryable: false });
    expect(emu.engine.drive(id, 'ERROR').status_message).toMatchObject({ error_code: 'internal_error', retryable: true });
  });

  it('advances a manual run one step at a time', async () => {
    const id = emu.engine.createRun({ prompt: 'p' }).run_id;
    expect((await control('POST', `/runs/${id}/advance`)).body?.state).toBe('PENDING');
    emu.engine.drive(id, 'SUCCEEDED');
    expect((await control('POST', `/runs/${id}/advance`)).status).toBe(409);
  });

  it('rejects bad drives', async () => {
    const id = emu.engine.createRun({ prompt: 'p' }).run_id;
    expect((await control('POST', '/runs/run_nope/state', { state: 'QUEUED' })).status).toBe(404);
    expect((await control('POST', `/runs/${id}/state`, {})).body?.detail).toContain('state');
    expect((await control('POST', `/runs/${id}/state`, { state: 'X', artifacts: [{}] })).status).toBe(400);
    expect((await control('GET', '/runs/run_nope/followups')).status).toBe(404);
    expect((await control('GET', '/nothing')).status).toBe(404);
  });
});

describe('session pages', () => {
  it('shows title, prompt, state, history and follow-ups, all escaped', async () => {
    const id = emu.engine.createRun({ prompt: 'Fix <script>alert("x")</script> & more' }).run_id;
    emu.engine.advance(id);
    emu.engine.advance(id);
    emu.engine.sendFollowup(id, 'use <b>main</b>');
    const run = emu.engine.get(id);
    expect(run?.session_link).toBe(`${emu.url}/sessions/${run?.session_id}`);

    const res = await fetch(run?.session_link as string);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain('Fix &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b>main</b>');
    expect(html).toContain('use &lt;b&gt;main&lt;/b&gt;');
    for (const state of ['QUEUED', 'PENDING', 'CLAIMED']) expect(html).toContain(`<td class="state">${state}</td>`);
    expect(html).toContain(run?.run_id);
  });

  it('answers 404 for an unknown session and lists runs on the index', async () => {
    expect((await fetch(`${emu.url}/sessions/sess_nope`)).status).toBe(404);
    const id = emu.engine.createRun({ prompt: 'Index me <now>' }).run_id;
    emu.engine.drive(id, 'CLAIMED');
    const html = await (await fetch(`${emu.url}/`)).text();
    expect(html).toContain('Index me &lt;now&gt;');
    expect(html).toContain(`href="/sessions/${emu.engine.get(id)?.session_id}"`);
  });

  it('uses publicUrl for session links when given', async () => {
    const other = await startEmulator({ apiKey: KEY, manual: true, publicUrl: 'https://emu.example.com/' });
    try {
      const id = other.engine.createRun({ prompt: 'p' }).run_id;
      const run = other.engine.drive(id, 'CLAIMED');
      expect(run.session_link).toBe(`https://emu.example.com/sessions/${run.session_id}`);
    } finally {
      await other.close();
    }
  });
});

describe('faults that name a request', () => {
  it('meet only that request; others pass', async () => {
    const { startEmulator } = await import('./emulator.js');
    const emulator = await startEmulator({ apiKey: 'k', port: 0, manual: true });
    const auth = { authorization: 'Bearer k', 'content-type': 'application/json' };
    try {
      const added = await fetch(`${emulator.url}/_emulator/faults`, {
        method: 'POST',
        body: JSON.stringify({ count: 1, status: 429, match: 'POST /agent/run' }),
      });
      expect(added.status).toBe(200);
      expect((await fetch(`${emulator.baseUrl}/agent/runs`, { headers: auth })).status).toBe(200);
      expect((await fetch(`${emulator.baseUrl}/agent/run`, { method: 'POST', headers: auth, body: JSON.stringify({ prompt: 'x' }) })).status).toBe(429);
      expect((await fetch(`${emulator.baseUrl}/agent/run`, { method: 'POST', headers: auth, body: JSON.stringify({ prompt: 'x' }) })).status).toBe(200);
      const bad = await fetch(`${emulator.url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ status: 429, match: 'runs' }) });
      expect(bad.status).toBe(400);
    } finally {
      await emulator.close();
    }
  });
});
