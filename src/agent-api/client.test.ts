import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentApiError, type RunItem } from '../core/ports/agent-runs.js';
import { startEmulator, type RunningEmulator } from '../emulator/index.js';
import { AgentApiClient, type AgentApiClientOptions } from './client.js';

const API_KEY = 'test-key-7f3a9c1d';
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
});
afterAll(async () => {
  await emulator.close();
});
afterEach(async () => {
  await fetch(`${emulator.url}/_emulator/reset`, { method: 'POST' });
});

/** A client whose waits are recorded instead of slept, so retry tests assert the delay asked for. */
function clientFor(overrides: Partial<AgentApiClientOptions> = {}) {
  const delays: number[] = [];
  const client = new AgentApiClient({
    baseUrl: emulator.baseUrl,
    apiKey: API_KEY,
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0.5,
    ...overrides,
  });
  return { client, delays };
}

async function injectFaults(fault: { count: number; status: number; retry_after?: number | string; error?: string; detail?: string; delay_ms?: number }) {
  const response = await fetch(`${emulator.url}/_emulator/faults`, {
    method: 'POST',
    body: JSON.stringify(fault),
    headers: { 'content-type': 'application/json' },
  });
  expect(response.ok).toBe(true);
}

async function requestLog(): Promise<Array<{ method: string; path: string; status: number }>> {
  const response = await fetch(`${emulator.url}/_emulator/requests`);
  return ((await response.json()) as { requests: Array<{ method: string; path: string; status: number }> }).requests;
}

async function drive(runId: string, body: Record<string, unknown>) {
  const response = await fetch(`${emulator.url}/_emulator/runs/${runId}/state`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  expect(response.ok).toBe(true);
}

describe('AgentApiClient against the emulator', () => {
  it('creates a run with a config, reads it back and finds it by name', async () => {
    const { client } = clientFor();
    const created = await client.createRun({
      prompt: 'Fix the flaky test\nin ci.yml',
      title: 'Fix flaky test',
      config: { name: 'web', environment_id: 'env_web', custom_field: 1 },
    });
    expect(created.state).toBe('QUEUED');
    const run = await client.getRun(created.run_id);
    expect(run).toMatchObject({ run_id: created.run_id, title: 'Fix flaky test', prompt: 'Fix the flaky test\nin ci.yml', state: 'QUEUED' });
    expect(run.agent_config).toMatchObject({ name: 'web', environment_id: 'env_web', custom_field: 1 });
    const page = await client.listRuns({ name: 'web' });
    expect(page.runs.map((item) => item.run_id)).toEqual([created.run_id]);
    expect((await client.listRuns({ name: 'other' })).runs).toEqual([]);
  });

  it('dispatches to a factory', async () => {
    const { client } = clientFor();
    const created = await client.dispatchToFactory('fac_1', { prompt: 'Triage ENG-1', ticket_ref: 'ENG-1', ticket_url: 'https://linear.app/x/issue/ENG-1' });
    const run = await client.getRun(created.run_id);
    expect(run.prompt).toBe('Triage ENG-1');
    expect(run.agent_config ?? undefined).toBeUndefined();
  });

  it('filters by repeated state', async () => {
    const { client } = clientFor();
    const a = await client.createRun({ prompt: 'a' });
    const b = await client.createRun({ prompt: 'b' });
    await client.createRun({ prompt: 'c' });
    await drive(a.run_id, { state: 'INPROGRESS' });
    await drive(b.run_id, { state: 'SUCCEEDED' });
    const page = await client.listRuns({ state: ['INPROGRESS', 'SUCCEEDED'] });
    expect(page.runs.map((run) => run.run_id).sort()).toEqual([a.run_id, b.run_id].sort());
  });

  it('follows next_cursor across several pages without loss or repeat', async () => {
    const { client } = clientFor();
    const ids: string[] = [];
    for (let index = 0; index < 23; index++) ids.push((await client.createRun({ prompt: `run ${index}` })).run_id);
    const seen: string[] = [];
    for await (const run of client.allRuns({ limit: 5 })) seen.push(run.run_id);
    expect(seen).toHaveLength(23);
    expect(new Set(seen)).toEqual(new Set(ids));
    // Newest first.
    expect(seen[0]).toBe(ids[22]);
    const listCalls = (await requestLog()).filter((entry) => entry.path === '/api/v1/agent/runs' && entry.method === 'GET');
    expect(listCalls).toHaveLength(5);
  });

  it('sends follow-ups and cancels', async () => {
    const { client } = clientFor();
    const { run_id } = await client.createRun({ prompt: 'long task' });
    await drive(run_id, { state: 'INPROGRESS' });
    await client.sendFollowup(run_id, 'also update the docs');
    const followups = (await (await fetch(`${emulator.url}/_emulator/runs/${run_id}/followups`)).json()) as { followups: Array<{ message: string }> };
    expect(followups.followups.map((entry) => entry.message)).toEqual(['also update the docs']);
    await client.cancelRun(run_id);
    expect((await client.getRun(run_id)).state).toBe('CANCELLED');
  });

  it('a follow-up revives an ended run', async () => {
    const { client } = clientFor();
    const { run_id } = await client.createRun({ prompt: 'task' });
    await drive(run_id, { state: 'SUCCEEDED' });
    await client.sendFollowup(run_id, 'one more thing');
    expect(['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS']).toContain((await client.getRun(run_id)).state);
  });

  it.each([
    ['a run that ended', 'SUCCEEDED', 'bad_request', 400],
    ['a BLOCKED run', 'BLOCKED', 'bad_request', 400],
  ])('cancelling %s is a bad request', async (_what, state, kind, status) => {
    const { client } = clientFor();
    const { run_id } = await client.createRun({ prompt: 'x' });
    await drive(run_id, { state });
    await expect(client.cancelRun(run_id)).rejects.toMatchObject({ kind, status });
  });

  it('cancelling a PENDING run retries the 409 and reports it when it persists', async () => {
    const { client, delays } = clientFor();
    const { run_id } = await client.createRun({ prompt: 'x' });
    await drive(run_id, { state: 'PENDING' });
    const error = await client.cancelRun(run_id).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentApiError);
    expect(error).toMatchObject({ kind: 'conflict', status: 409, code: 'conflict', retryable: true });
    expect(delays).toHaveLength(3);
  });

  it('unknown runs are not_found', async () => {
    const { client } = clientFor();
    await expect(client.getRun('run_missing')).rejects.toMatchObject({ kind: 'not_found', status: 404, code: 'resource_not_found' });
  });

  it('a wrong key is an authentication error that does not contain the key', async () => {
    const { client } = clientFor({ apiKey: 'wrong-key-secret-value' });
    const error = (await client.listRuns().catch((caught: unknown) => caught)) as AgentApiError;
    expect(error).toMatchObject({ kind: 'authentication', status: 401, retryable: false });
    expect(JSON.stringify({ message: error.message, detail: error.detail, stack: error.stack })).not.toContain('wrong-key-secret-value');
    expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain(API_KEY);
  });

  it('the emulator rejects a bad query and the client reports the field', async () => {
    const { client } = clientFor();
    await expect(client.listRuns({ limit: 501 })).rejects.toMatchObject({ kind: 'bad_request', detail: expect.stringContaining('limit') });
    await expect(client.listRuns({ updated_after: 'yesterday' })).rejects.toMatchObject({ detail: expect.stringContaining('updated_after') });
  });
});

describe('retries', () => {
  it('honours Retry-After on 429 for reads and then succeeds', async () => {
    const { client, delays } = clientFor();
    await injectFaults({ count: 2, status: 429, retry_after: 7 });
    const page = await client.listRuns();
    expect(page.runs).toEqual([]);
    expect(delays).toEqual([7000, 7000]);
  });

  it('retries 503 with growing backoff', async () => {
    const { client, delays } = clientFor({ retry: { baseDelayMs: 100 } });
    await injectFaults({ count: 3, status: 503 });
    await client.listRuns();
    expect(delays).toEqual([75, 150, 300]);
  });

  it('gives up after maxRetries with the last error typed', async () => {
    const { client, delays } = clientFor({ retry: { maxRetries: 2 } });
    await injectFaults({ count: 5, status: 500, detail: 'boom' });
    await expect(client.getRun('anything')).rejects.toMatchObject({ kind: 'server', status: 500, detail: 'boom' });
    expect(delays).toHaveLength(2);
  });

  it('retries a create on 429 (rejected, so no run was made)', async () => {
    const { client, delays } = clientFor();
    await injectFaults({ count: 1, status: 429, retry_after: 2 });
    const created = await client.createRun({ prompt: 'x' });
    expect(delays).toEqual([2000]);
    const creates = (await requestLog()).filter((entry) => entry.method === 'POST' && entry.path === '/api/v1/agent/run');
    expect(creates.map((entry) => entry.status)).toEqual([429, 200]);
    expect((await client.listRuns()).runs.map((run) => run.run_id)).toEqual([created.run_id]);
  });

  it('never re-sends a create after a 5xx: the server may have created the run', async () => {
    const { client, delays } = clientFor();
    await injectFaults({ count: 1, status: 503 });
    await expect(client.createRun({ prompt: 'x' })).rejects.toMatchObject({ kind: 'server', status: 503 });
    expect(delays).toEqual([]);
    const creates = (await requestLog()).filter((entry) => entry.method === 'POST' && entry.path === '/api/v1/agent/run');
    expect(creates).toHaveLength(1);
  });

  it('never re-sends a follow-up after a dropped connection', async () => {
    const { client, delays } = clientFor();
    const { run_id } = await client.createRun({ prompt: 'x' });
    await injectFaults({ count: 1, status: 0 });
    await expect(client.sendFollowup(run_id, 'hi')).rejects.toMatchObject({ kind: 'connection', status: 0 });
    expect(delays).toEqual([]);
  });

  it('retries reads after a dropped connection', async () => {
    const { client, delays } = clientFor();
    await injectFaults({ count: 1, status: 0 });
    await client.listRuns();
    expect(delays).toHaveLength(1);
  });

  it('times out a slow answer as a timeout error', async () => {
    const { client } = clientFor({ timeoutMs: 200, retry: { maxRetries: 0 } });
    await injectFaults({ count: 1, status: 200, delay_ms: 3000 });
    await expect(client.listRuns()).rejects.toMatchObject({ kind: 'timeout', code: 'timeout', retryable: true });
  });

  it('reports a refused connection as connection_refused, safe to resend even for a create', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { client, delays } = clientFor({ baseUrl: `http://127.0.0.1:${port}/api/v1`, retry: { maxRetries: 2 } });
    await expect(client.createRun({ prompt: 'x' })).rejects.toMatchObject({ kind: 'connection', code: 'connection_refused' });
    expect(delays).toHaveLength(2);
  });
});

describe('tolerance of servers that know more than we do', () => {
  let server: Server;
  let baseUrl: string;
  let answer: { status: number; body: string; headers?: Record<string, string> };

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const client = () => new AgentApiClient({ baseUrl, apiKey: 'k', sleep: async () => {}, retry: { maxRetries: 0 } });

  it('keeps unknown states and fields, and both shapes of status_message', async () => {
    const runs = [
      { run_id: 'r1', state: 'WAITING_FOR_REVIEW', status_message: 'Reviewing', brand_new_field: { nested: true } },
      { run_id: 'r2', state: 'FAILED', status_message: { message: 'Tests failed', error_code: 'tests', retryable: false, extra: 1 } },
      {
        run_id: 'r3',
        state: 'SUCCEEDED',
        artifacts: [
          { artifact_type: 'PULL_REQUEST', data: { url: 'https://x/pull/1', branch: 'b' } },
          { artifact_type: 'VIDEO', data: { url: 'v' } },
          'garbage',
        ],
      },
    ];
    answer = { status: 200, body: JSON.stringify({ runs, page_info: { has_next_page: false }, total: 3 }) };
    const page = await client().listRuns();
    const [r1, r2, r3] = page.runs as [RunItem, RunItem, RunItem];
    expect(r1.state).toBe('WAITING_FOR_REVIEW');
    expect(r1['brand_new_field']).toEqual({ nested: true });
    expect(r2.status_message).toEqual({ message: 'Tests failed', error_code: 'tests', retryable: false, extra: 1 });
    expect(r3.artifacts?.map((artifact) => artifact.artifact_type)).toEqual(['PULL_REQUEST', 'VIDEO']);
  });

  it('reads runs shaped as the provider SDK declares them', async () => {
    const created = '2026-03-01T10:00:00Z';
    const runs = [
      // Optional members left out, task_id, creator as a service account, a dated artifact.
      {
        run_id: 'r1',
        task_id: 'r1',
        title: 'Fix',
        prompt: 'Fix',
        state: 'SUCCEEDED',
        created_at: created,
        updated_at: created,
        status_message: { message: 'Completed' },
        creator: { type: 'service_account', uid: 'sa_1' },
        artifacts: [{ artifact_type: 'PULL_REQUEST', created_at: created, data: { url: 'https://x/pull/2', branch: 'b' } }],
      },
      // alpha.8 declares the message itself optional.
      { run_id: 'r2', task_id: 'r2', state: 'ERROR', status_message: { error_code: 'resource_unavailable', retryable: true } },
      { run_id: 'r3', task_id: 'r3', state: 'QUEUED', status_message: {} },
    ];
    answer = { status: 200, body: JSON.stringify({ runs, page_info: { has_next_page: false } }) };
    const [r1, r2, r3] = (await client().listRuns()).runs as [RunItem, RunItem, RunItem];
    expect(r1).toMatchObject({ task_id: 'r1', status_message: { message: 'Completed' }, creator: { type: 'service_account', uid: 'sa_1' } });
    expect(r1.session_link).toBeUndefined();
    expect(r1.artifacts).toEqual([{ artifact_type: 'PULL_REQUEST', created_at: created, data: { url: 'https://x/pull/2', branch: 'b' } }]);
    expect(r2.status_message).toEqual({ message: '', error_code: 'resource_unavailable', retryable: true });
    expect(r3.status_message).toEqual({ message: '' });
  });

  it('rejects a run without run_id as an invalid response', async () => {
    answer = { status: 200, body: JSON.stringify({ state: 'QUEUED' }) };
    await expect(client().getRun('x')).rejects.toMatchObject({ kind: 'invalid_response', retryable: false });
  });

  it('stops when a server repeats a cursor', async () => {
    answer = { status: 200, body: JSON.stringify({ runs: [{ run_id: 'r', state: 'QUEUED' }], page_info: { has_next_page: true, next_cursor: 'same' } }) };
    const collect = async () => {
      const runs: RunItem[] = [];
      for await (const run of client().allRuns()) runs.push(run);
      return runs;
    };
    await expect(collect()).rejects.toMatchObject({ kind: 'invalid_response' });
  });

  it('reads an RFC 7807 body with an HTTP-date Retry-After', async () => {
    const retryAt = new Date(Date.now() + 60_000).toUTCString();
    answer = {
      status: 429,
      body: JSON.stringify({
        type: 'about:blank',
        title: 'Too Many Requests',
        status: 429,
        detail: 'capacity full',
        error: 'capacity_exceeded',
        retryable: true,
      }),
      headers: { 'retry-after': retryAt },
    };
    const error = (await client()
      .createRun({ prompt: 'x' })
      .catch((caught: unknown) => caught)) as AgentApiError;
    expect(error).toMatchObject({ kind: 'rate_limited', code: 'capacity_exceeded', detail: 'capacity full', retryable: true });
    expect(error.retryAfterMs).toBeGreaterThan(50_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(60_000);
  });
});
