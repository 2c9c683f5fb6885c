import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunItem, RunPage } from '../core/ports/agent-runs.js';
import { startEmulator, type RunningEmulator } from './index.js';

const KEY = 'test-key-123';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');

let emu: RunningEmulator;
let now = T0;

/** What these tests read from an answer: a run (or a created one), a page of runs, or a problem's fields. */
type Body = Partial<RunItem> & Partial<RunPage> & { detail?: string; retryable?: boolean };

interface Answer {
  status: number;
  headers: Headers;
  /** Undefined when the answer has no body. */
  body: Body | undefined;
}

async function call(method: string, path: string, body?: unknown, key: string | null = KEY): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (key !== null) headers['authorization'] = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${emu.baseUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Body) : undefined };
}

async function create(body: Record<string, unknown> = { prompt: 'Do the thing' }): Promise<string> {
  const answer = await call('POST', '/agent/run', body);
  expect(answer.status).toBe(200);
  return answer.body?.run_id as string;
}

function expectProblem(answer: Answer, status: number, error: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toBe('application/problem+json');
  expect(answer.body).toMatchObject({
    status,
    error,
    title: expect.any(String),
    type: `https://docs.warp.dev/reference/api-and-sdk/troubleshooting/errors/${error}`,
  });
  expect(typeof answer.body?.detail).toBe('string');
  expect(typeof answer.body?.retryable).toBe('boolean');
}

beforeEach(async () => {
  now = T0;
  emu = await startEmulator({ apiKey: KEY, manual: true, clock: { now: () => new Date(now) } });
});

afterEach(async () => {
  await emu.close();
});

describe('authentication', () => {
  it.each([
    ['GET', '/agent/runs'],
    ['POST', '/agent/run'],
    ['GET', '/agent/runs/run_x'],
    ['POST', '/agent/runs/run_x/followups'],
    ['POST', '/agent/runs/run_x/cancel'],
    ['POST', '/factory/f1/runs'],
  ])('%s %s without a key is 401', async (method, path) => {
    const answer = await call(method, path, method === 'POST' ? { prompt: 'x' } : undefined, null);
    expectProblem(answer, 401, 'authentication_required');
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('rejects a wrong key and a non-bearer scheme', async () => {
    expectProblem(await call('GET', '/agent/runs', undefined, 'wrong'), 401, 'authentication_required');
    const res = await fetch(`${emu.baseUrl}/agent/runs`, { headers: { authorization: `Basic ${KEY}` } });
    expect(res.status).toBe(401);
    expect(emu.engine.list().runs).toHaveLength(0);
  });

  it('accepts the right key', async () => {
    expect((await call('GET', '/agent/runs')).status).toBe(200);
  });
});

describe('creating runs', () => {
  it('creates a QUEUED run and reports it in full', async () => {
    const answer = await call('POST', '/agent/run', {
      prompt: '\n  \nFix the flaky test\nin the payments module',
      config: { name: 'slack', model_id: 'm-1', environment_id: 'env_1', mcp_servers: { gh: { url: 'x' } } },
      agent_identity_uid: 'ident_1',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ run_id: expect.stringMatching(/^run_/), state: 'QUEUED', task_id: answer.body?.run_id });

    const run = (await call('GET', `/agent/runs/${answer.body?.run_id}`)).body;
    expect(run).toMatchObject({
      run_id: answer.body?.run_id,
      task_id: answer.body?.run_id,
      title: 'Fix the flaky test',
      prompt: '\n  \nFix the flaky test\nin the payments module',
      state: 'QUEUED',
      status_message: { message: 'Queued' },
      created_at: '2026-03-01T10:00:00.000Z',
      updated_at: '2026-03-01T10:00:00.000Z',
      started_at: null,
      agent_config: { name: 'slack', model_id: 'm-1', environment_id: 'env_1', mcp_servers: { gh: { url: 'x' } } },
      creator: { type: 'service_account', uid: expect.stringMatching(/^key_/) },
      source: 'API',
      artifacts: [],
      agent_identity_uid: 'ident_1',
    });
    // Optional members the SDK declares non-nullable are left out until they exist.
    expect(run).not.toHaveProperty('session_id');
    expect(run).not.toHaveProperty('session_link');
    // Fields the real service sends and our client does not model.
    expect(run).toHaveProperty('is_sandbox_running', false);
    expect(run?.request_usage).toEqual({ inference_cost: expect.any(Number), compute_cost: expect.any(Number) });
    expect(run?.conversation_id).toEqual(expect.any(String));
    expect(JSON.stringify(run)).not.toContain(KEY);
  });

  it('accepts the /agent/runs alias and keeps an explicit title', async () => {
    const answer = await call('POST', '/agent/runs', { prompt: 'p', title: 'My title' });
    expect(answer.body?.state).toBe('QUEUED');
    expect(emu.engine.get(answer.body?.run_id ?? '')?.title).toBe('My title');
  });

  it('cuts a long first line to 80 characters', async () => {
    const id = await create({ prompt: `${'a'.repeat(100)}\nmore` });
    const title = emu.engine.get(id)?.title ?? '';
    expect(title).toHaveLength(80);
    expect(title.endsWith('…')).toBe(true);
  });

  it('dispatches to a factory as an ordinary run', async () => {
    const answer = await call('POST', '/factory/fac_9/runs', {
      prompt: 'Handle ENG-1',
      ticket_ref: 'ENG-1',
      ticket_url: 'https://linear.app/x/issue/ENG-1',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ run_id: expect.stringMatching(/^run_/), state: 'QUEUED', task_id: answer.body?.run_id });
    const run = (await call('GET', `/agent/runs/${answer.body?.run_id}`)).body;
    expect(run).not.toHaveProperty('agent_config');
    expect(run).toMatchObject({
      source: 'FACTORY',
      factory_uid: 'fac_9',
      ticket_ref: 'ENG-1',
      ticket_url: 'https://linear.app/x/issue/ENG-1',
      title: 'Handle ENG-1',
    });
    const listed = (await call('GET', '/agent/runs?source=FACTORY')).body?.runs;
    expect(listed?.map((r) => r.run_id)).toEqual([answer.body?.run_id]);
  });

  it.each([
    [{}, 'prompt'],
    [{ prompt: '' }, 'prompt'],
    [{ prompt: '   ' }, 'prompt'],
    [{ prompt: 42 }, 'prompt'],
    [{ prompt: 'p', config: [] }, 'config'],
    [{ prompt: 'p', config: 'x' }, 'config'],
    [{ prompt: 'p', config: { name: 7 } }, 'config.name'],
    [{ prompt: 'p', title: 3 }, 'title'],
    [{ prompt: 'p', agent_identity_uid: false }, 'agent_identity_uid'],
    [{ skill: '' }, 'skill'],
    [{ skill: 7, prompt: 'p' }, 'skill'],
    [{ prompt: 'p', config: { skill_spec: '  ' } }, 'config.skill_spec'],
    [{ skill: 'acme/x:y', prompt: 42 }, 'prompt'],
    [{ title: 'no prompt, no skill' }, 'prompt'],
  ])('rejects %j with a 400 naming %s', async (body, field) => {
    const answer = await call('POST', '/agent/run', body);
    expectProblem(answer, 400, 'invalid_request');
    expect(answer.body?.detail).toContain(field);
    expect(answer.body?.retryable).toBe(false);
    expect(emu.engine.list().runs).toHaveLength(0);
  });
});

describe('bad requests', () => {
  it('answers 400 to malformed JSON and to a body that is not an object', async () => {
    expectProblem(await call('POST', '/agent/run', '{"prompt": '), 400, 'invalid_request');
    expectProblem(await call('POST', '/agent/run', '["prompt"]'), 400, 'invalid_request');
  });

  it('answers 413 to a body over 1 MiB', async () => {
    const answer = await call('POST', '/agent/run', { prompt: 'x'.repeat(1024 * 1024 + 10) });
    expectProblem(answer, 413, 'invalid_request');
    expect(emu.engine.list().runs).toHaveLength(0);
  });

  it('answers 404 to an unknown path and 405 with Allow to a wrong method', async () => {
    expectProblem(await call('GET', '/agent/nothing'), 404, 'resource_not_found');
    const wrong = await call('DELETE', '/agent/runs');
    expectProblem(wrong, 405, 'operation_not_supported');
    expect(wrong.headers.get('allow')).toBe('POST, GET');
    expectProblem(await call('GET', '/agent/run'), 405, 'operation_not_supported');
  });

  it('answers 404 to an unknown run', async () => {
    const answer = await call('GET', '/agent/runs/run_nope');
    expectProblem(answer, 404, 'resource_not_found');
    expect(answer.body?.detail).toContain('run_nope');
  });
});

describe('progression', () => {
  it('sets the session at CLAIMED and started_at at INPROGRESS; updated_at strictly increases', async () => {
    const id = await create();
    const seen: string[] = [emu.engine.get(id)?.updated_at ?? ''];
    for (let step = 0; step < 2; step++) seen.push(emu.engine.advance(id).updated_at ?? '');
    const claimed = (await call('GET', `/agent/runs/${id}`)).body;
    expect(claimed?.state).toBe('CLAIMED');
    expect(claimed?.session_id).toMatch(/^sess_/);
    expect(claimed?.session_link).toBe(`${emu.url}/sessions/${claimed?.session_id}`);
    expect(claimed?.is_sandbox_running).toBe(true);
    expect(claimed?.started_at).toBeNull();

    seen.push(emu.engine.advance(id).updated_at ?? '');
    const working = (await call('GET', `/agent/runs/${id}`)).body;
    expect(working?.state).toBe('INPROGRESS');
    expect(working?.started_at).toBe(working?.updated_at);

    seen.push(emu.engine.advance(id).updated_at ?? '');
    expect(emu.engine.get(id)?.state).toBe('SUCCEEDED');
    // The clock never moved, yet every change has a later updated_at.
    const times = seen.map((s) => Date.parse(s));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1] as number);
    expect(seen[0]).toBe('2026-03-01T10:00:00.000Z');
  });
});

describe('follow-ups', () => {
  it('records every follow-up with its time; a running run is not moved', async () => {
    const id = await create();
    expect((await call('POST', `/agent/runs/${id}/followups`, { message: 'first' })).body).toEqual({});
    now += 1500;
    expect((await call('POST', `/agent/runs/${id}/followups`, { message: 'second' })).status).toBe(200);
    const followups: unknown = await (await fetch(`${emu.url}/_emulator/runs/${id}/followups`)).json();
    expect(followups).toEqual({
      followups: [
        { message: 'first', at: '2026-03-01T10:00:00.000Z' },
        { message: 'second', at: '2026-03-01T10:00:01.500Z' },
      ],
    });
    expect(emu.engine.get(id)?.state).toBe('QUEUED');
  });

  it('continues an ended run from QUEUED', async () => {
    const id = await create();
    emu.engine.drive(id, 'SUCCEEDED');
    const before = emu.engine.get(id)?.updated_at ?? '';
    await call('POST', `/agent/runs/${id}/followups`, { message: 'also update the docs' });
    const run = (await call('GET', `/agent/runs/${id}`)).body;
    expect(run?.state).toBe('QUEUED');
    expect(Date.parse(run?.updated_at ?? '')).toBeGreaterThan(Date.parse(before));
    // Manual mode: the revived run moves when advanced, through the whole progression.
    const states = [1, 2, 3, 4].map(() => emu.engine.advance(id).state);
    expect(states).toEqual(['PENDING', 'CLAIMED', 'INPROGRESS', 'SUCCEEDED']);
  });

  it('resumes a BLOCKED run', async () => {
    const id = await create();
    emu.engine.drive(id, 'BLOCKED', { status_message: 'Waiting for input: which branch?' });
    await call('POST', `/agent/runs/${id}/followups`, { message: 'main' });
    expect(emu.engine.get(id)?.state).toBe('INPROGRESS');
    expect(emu.engine.advance(id).state).toBe('SUCCEEDED');
  });

  it('rejects an empty message and an unknown run', async () => {
    const id = await create();
    const empty = await call('POST', `/agent/runs/${id}/followups`, { message: '' });
    expectProblem(empty, 400, 'invalid_request');
    expect(empty.body?.detail).toContain('message');
    expectProblem(await call('POST', `/agent/runs/${id}/followups`, {}), 400, 'invalid_request');
    expectProblem(await call('POST', '/agent/runs/run_nope/followups', { message: 'hi' }), 404, 'resource_not_found');
    expect(emu.engine.followups(id)).toEqual([]);
  });
});

describe('cancel', () => {
  // An undocumented state is taken to be active work, so it can be cancelled too.
  it.each(['QUEUED', 'CLAIMED', 'INPROGRESS', 'WAITING_FOR_REVIEW'])('cancels a %s run; the body is the run id', async (state) => {
    const id = await create();
    if (state !== 'QUEUED') emu.engine.drive(id, state);
    const answer = await call('POST', `/agent/runs/${id}/cancel`);
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(id);
    expect(emu.engine.get(id)?.state).toBe('CANCELLED');
  });

  it('answers 409 (retryable) for a PENDING run', async () => {
    const id = await create();
    emu.engine.advance(id);
    const answer = await call('POST', `/agent/runs/${id}/cancel`);
    expectProblem(answer, 409, 'conflict');
    expect(answer.body?.retryable).toBe(true);
    expect(answer.body?.detail).toBe('run is being prepared; retry shortly');
    expect(emu.engine.get(id)?.state).toBe('PENDING');
  });

  it.each(['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED', 'BLOCKED'])('answers 400 for a %s run', async (state) => {
    const id = await create();
    emu.engine.drive(id, state);
    const answer = await call('POST', `/agent/runs/${id}/cancel`);
    expectProblem(answer, 400, 'invalid_request');
    expect(answer.body?.retryable).toBe(false);
    expect(emu.engine.get(id)?.state).toBe(state);
  });

  it('answers 404 for an unknown run', async () => {
    expectProblem(await call('POST', '/agent/runs/run_nope/cancel'), 404, 'resource_not_found');
  });
});
