/**
 * The emulator driven through the run API's official TypeScript SDK (`oz-agent-sdk`), the client
 * users point at it: every answer is checked against the SDK's declared types (see sdk-shapes.ts).
 */
import OzAPI, { APIError, AuthenticationError, BadRequestError, ConflictError, InternalServerError, NotFoundError, RateLimitError } from 'oz-agent-sdk';
import type { RunListParams } from 'oz-agent-sdk/resources/agent';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { PROBLEM_TYPE_PREFIX, createdRunSchema, problemSchema, runItemSchema, runListSchema } from './sdk-shapes.js';

const KEY = 'oz-sdk-test-key-4c7e1a9b';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const SKILL = 'acme/tools:.claude/skills/deploy/SKILL.md';

let emu: RunningEmulator;
let client: OzAPI;
let now = T0;

/** Parses `value` with `schema` and fails with zod's issues (paths and reasons) when it does not conform. */
function conforms<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  return schema.parse(value);
}

async function retrieve(runId: string) {
  return conforms(runItemSchema, await client.agent.runs.retrieve(runId));
}

async function create(body: Parameters<OzAPI['agent']['run']>[0]): Promise<string> {
  now += 1000;
  const created = conforms(createdRunSchema, await client.agent.run(body));
  expect(created.task_id).toBe(created.run_id);
  return created.run_id;
}

async function list(query: RunListParams = {}) {
  return conforms(runListSchema, await client.agent.runs.list(query));
}

/** Awaits a call the SDK must refuse; checks its error class, status and problem body. */
async function refused(call: Promise<unknown>, errorClass: new (...args: never[]) => APIError, status: number, code: string) {
  const error: unknown = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(errorClass);
  const apiError = error as APIError;
  expect(apiError.status).toBe(status);
  const problem = conforms(problemSchema, apiError.error);
  expect(problem).toMatchObject({ status, error: code, type: `${PROBLEM_TYPE_PREFIX}${code}` });
  expect(apiError.message).not.toContain(KEY);
  return { problem, headers: apiError.headers };
}

async function emulator(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${emu.url}/_emulator${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

beforeAll(async () => {
  emu = await startEmulator({ apiKey: KEY, manual: true, clock: { now: () => new Date(now) } });
  client = new OzAPI({ apiKey: KEY, baseURL: emu.baseUrl, maxRetries: 2, logLevel: 'off' });
});

afterAll(async () => {
  await emu.close();
});

beforeEach(async () => {
  now = T0;
  await emulator('POST', '/reset', {});
});

describe('runs as the SDK declares them', () => {
  it('creates a run and reports it without the members it does not have yet', async () => {
    const id = await create({
      prompt: 'Fix the flaky test\nin the payments module',
      config: { name: 'sdk', environment_id: 'env_sdk', model_id: 'm-1', mcp_servers: { gh: { url: 'https://mcp.example' } } },
    });
    const run = await retrieve(id);
    expect(run).toMatchObject({
      run_id: id,
      task_id: id,
      title: 'Fix the flaky test',
      state: 'QUEUED',
      status_message: { message: 'Queued' },
      creator: { type: 'service_account' },
      source: 'API',
      agent_config: { name: 'sdk', environment_id: 'env_sdk', model_id: 'm-1' },
      artifacts: [],
    });
    expect(run.creator?.uid).toMatch(/^key_/);
    for (const member of ['session_id', 'session_link', 'agent_skill', 'schedule']) expect(run).not.toHaveProperty(member);
    expect(JSON.stringify(run)).not.toContain(KEY);
  });

  it('follows a run to SUCCEEDED with a pull request, conforming at every state', async () => {
    const id = await create({ prompt: 'Update the dependencies\nemulate: pr' });
    for (const state of ['PENDING', 'CLAIMED', 'INPROGRESS', 'SUCCEEDED']) {
      now += 1000;
      emu.engine.advance(id);
      expect((await retrieve(id)).state).toBe(state);
    }
    const run = await retrieve(id);
    expect(run.session_link).toBe(`${emu.url}/sessions/${run.session_id}`);
    expect(run.started_at).toEqual(expect.any(String));
    expect(run.status_message).toEqual({ message: 'Completed' });
    const artifact = run.artifacts?.[0];
    const url = artifact?.artifact_type === 'PULL_REQUEST' ? artifact.data.url : '';
    expect(url).toMatch(/^https:\/\//);
    expect(run.artifacts).toEqual([{ artifact_type: 'PULL_REQUEST', created_at: run.updated_at, data: { url, branch: `agent/${id}` } }]);
  });

  it.each([
    ['emulate: fail tests are red', 'FAILED', { message: 'tests are red', retryable: false }],
    [
      'emulate: fail environment_setup_failed npm install failed',
      'FAILED',
      { message: 'npm install failed', error_code: 'environment_setup_failed', retryable: false },
    ],
    ['emulate: error sandbox crashed', 'ERROR', { message: 'sandbox crashed', error_code: 'internal_error', retryable: true }],
    ['emulate: error resource_unavailable no sandbox free', 'ERROR', { message: 'no sandbox free', error_code: 'resource_unavailable', retryable: true }],
  ])('"%s" ends %s with a status message of the SDK shape', async (prompt, state, statusMessage) => {
    const id = await create({ prompt });
    for (let step = 0; step < 4; step++) emu.engine.advance(id);
    expect(await retrieve(id)).toMatchObject({ state, status_message: statusMessage });
  });

  it('wraps a driven plain-text status message and dates a driven artifact', async () => {
    const id = await create({ prompt: 'Review' });
    await emulator('POST', `/runs/${id}/state`, {
      state: 'BLOCKED',
      status_message: 'Waiting for input: which branch?',
      artifacts: [{ artifact_type: 'PULL_REQUEST', data: { url: 'https://github.com/acme/x/pull/7', branch: 'fix' } }],
    });
    const run = await retrieve(id);
    expect(run.status_message).toEqual({ message: 'Waiting for input: which branch?' });
    expect(run.artifacts?.[0]?.created_at).toBe(run.updated_at);
  });

  it('accepts a run with a skill and no prompt', async () => {
    const id = await create({ skill: SKILL, config: { environment_id: 'env_sdk' } });
    expect(await retrieve(id)).toMatchObject({
      prompt: `Run the skill ${SKILL}`,
      title: `Run the skill ${SKILL}`,
      agent_skill: { full_path: '.claude/skills/deploy/SKILL.md', name: 'deploy' },
      agent_config: { skill_spec: SKILL, name: 'deploy', environment_id: 'env_sdk' },
    });
    const fromConfig = await create({ config: { skill_spec: 'acme/tools:review' } });
    expect(await retrieve(fromConfig)).toMatchObject({
      agent_skill: { name: 'review' },
      agent_config: { skill_spec: 'acme/tools:review' },
    });
    await refused(client.agent.run({ title: 'nothing to do' }), BadRequestError, 400, 'invalid_request');
    expect((await list()).runs).toHaveLength(2);
  });
});

describe('listing through the SDK', () => {
  it('walks cursor pages newest first: none twice, none missed', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await create({ prompt: `run ${i}` }));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await list({ limit: 3, ...(cursor ? { cursor } : {}) });
      pages++;
      seen.push(...page.runs.map((run) => run.run_id));
      cursor = page.page_info.has_next_page ? page.page_info.next_cursor : undefined;
      if (page.page_info.has_next_page) expect(cursor).toEqual(expect.any(String));
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
  });

  it('honours q, environment_id, skill, skill_spec, schedule_id, artifact_type and state', async () => {
    const web = await create({ prompt: 'Fix the Checkout page', config: { environment_id: 'env_web' } });
    const api = await create({ prompt: 'Speed up the API', config: { environment_id: 'env_api', skill_spec: SKILL } });
    const pr = await create({ prompt: 'Bump deps emulate: pr' });
    for (let step = 0; step < 4; step++) emu.engine.advance(pr);
    now += 1000;
    const schedule = { schedule_id: 'sched_nightly', schedule_name: 'nightly', cron_schedule: '0 3 * * *' };
    const scheduled = emu.engine.createRun({ prompt: 'Nightly report', schedule }).run_id;

    const ids = async (query: RunListParams) => (await list(query)).runs.map((run) => run.run_id);
    expect(await ids({ q: 'checkout' })).toEqual([web]);
    expect(await ids({ q: 'deploy/skill.md' })).toEqual([api]);
    expect(await ids({ environment_id: 'env_api' })).toEqual([api]);
    expect(await ids({ skill: SKILL })).toEqual([api]);
    expect(await ids({ skill_spec: SKILL })).toEqual([api]);
    expect(await ids({ schedule_id: 'sched_nightly' })).toEqual([scheduled]);
    expect(await ids({ artifact_type: 'PULL_REQUEST' })).toEqual([pr]);
    expect(await ids({ artifact_type: 'PLAN' })).toEqual([]);
    expect(await ids({ state: ['QUEUED', 'INPROGRESS'], q: 'THE' })).toEqual([api, web]);
    expect(await ids({ state: ['SUCCEEDED'] })).toEqual([pr]);
    expect(await retrieve(scheduled)).toMatchObject({ source: 'SCHEDULED_AGENT', schedule });
  });

  it('sorts by sort_by and sort_order, and keeps the order across pages', async () => {
    const titles = ['banana', 'Apple', 'cherry', 'apple pie'];
    const ids: Record<string, string> = {};
    for (const title of titles) ids[title] = await create({ prompt: title });
    now += 1000;
    emu.engine.drive(ids['banana'] as string, 'INPROGRESS');
    const order = async (query: RunListParams) => {
      const titlesSeen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await list({ ...query, limit: 3, ...(cursor ? { cursor } : {}) });
        titlesSeen.push(...page.runs.map((run) => run.title));
        cursor = page.page_info.next_cursor;
      } while (cursor);
      return titlesSeen;
    };
    const sort = (sort_by: string, sort_order?: string) => ({ sort_by, ...(sort_order ? { sort_order } : {}) }) as RunListParams;
    expect(await order(sort('title'))).toEqual(['Apple', 'apple pie', 'banana', 'cherry']);
    expect(await order(sort('title', 'desc'))).toEqual(['cherry', 'banana', 'apple pie', 'Apple']);
    expect(await order(sort('created_at', 'asc'))).toEqual(titles);
    expect(await order(sort('updated_at'))).toEqual(['banana', 'apple pie', 'cherry', 'Apple']);
  });

  it.each([
    ['sort_by', { sort_by: 'size' }],
    ['sort_order', { sort_order: 'up' }],
    ['artifact_type', { artifact_type: 'VIDEO' }],
    ['q', { q: '' }],
    ['environment_id', { environment_id: '' }],
    ['skill', { skill: 'a:b', skill_spec: 'c:d' }],
    ['schedule_id', { schedule_id: '' }],
    ['source', { source: 'FAX' }],
    ['limit', { limit: 501 }],
    ['state', { state: ['DONE'] }],
  ])('refuses a bad %s with the SDK BadRequestError', async (parameter, query) => {
    const { problem } = await refused(client.agent.runs.list(query as RunListParams), BadRequestError, 400, 'invalid_request');
    expect(problem.detail?.startsWith(parameter)).toBe(true);
    expect(problem.retryable).toBe(false);
  });

  it('refuses a cursor made for another order', async () => {
    for (let i = 0; i < 3; i++) await create({ prompt: `run ${i}` });
    const first = await list({ limit: 1 });
    const cursor = first.page_info.next_cursor as string;
    await refused(client.agent.runs.list({ cursor, sort_by: 'title' } as RunListParams), BadRequestError, 400, 'invalid_request');
  });
});

describe('follow-ups and cancel through the SDK', () => {
  it('sends a follow-up with client.post and revives an ended run', async () => {
    const id = await create({ prompt: 'Write the docs' });
    emu.engine.drive(id, 'SUCCEEDED');
    const answer = await client.post(`/agent/runs/${id}/followups`, { body: { message: 'also the changelog' } });
    expect(answer).toEqual({});
    expect(emu.engine.followups(id).map((f) => f.message)).toEqual(['also the changelog']);
    expect(await retrieve(id)).toMatchObject({ state: 'QUEUED', status_message: { message: 'Queued (follow-up)' } });
  });

  it('cancels a queued run, answering its id; ended and PENDING runs are refused', async () => {
    const id = await create({ prompt: 'Long job' });
    expect(await client.agent.runs.cancel(id)).toBe(id);
    expect(await retrieve(id)).toMatchObject({ state: 'CANCELLED', status_message: { message: 'Cancelled' } });
    const ended = await refused(client.agent.runs.cancel(id), BadRequestError, 400, 'invalid_request');
    expect(ended.problem.retryable).toBe(false);

    const pending = await create({ prompt: 'Another' });
    emu.engine.advance(pending);
    const conflict = await refused(client.agent.runs.cancel(pending, { maxRetries: 0 }), ConflictError, 409, 'conflict');
    expect(conflict.problem.retryable).toBe(true);
  });
});

describe('errors and retries through the SDK', () => {
  it('maps a wrong key, an unknown run and server trouble to the SDK error classes', async () => {
    const stranger = new OzAPI({ apiKey: 'not-the-key', baseURL: emu.baseUrl, maxRetries: 0, logLevel: 'off' });
    await refused(stranger.agent.runs.list(), AuthenticationError, 401, 'authentication_required');
    await refused(client.agent.runs.retrieve('run_nope'), NotFoundError, 404, 'resource_not_found');

    await emulator('POST', '/faults', { status: 429, retry_after: 7 });
    const busy = await refused(client.agent.runs.list({}, { maxRetries: 0 }), RateLimitError, 429, 'resource_unavailable');
    expect(busy.problem.retryable).toBe(true);
    expect(busy.headers?.get('retry-after')).toBe('7');

    await emulator('POST', '/faults', { status: 500 });
    await refused(client.agent.runs.list({}, { maxRetries: 0 }), InternalServerError, 500, 'internal_error');
  });

  it('lets the SDK retry a transient failure as Retry-After says', async () => {
    const id = await create({ prompt: 'p' });
    await emulator('DELETE', '/requests');
    await emulator('POST', '/faults', { status: 503, retry_after: '0.01', match: `GET /agent/runs/${id}` });
    expect((await retrieve(id)).run_id).toBe(id);
    const log = (await emulator('GET', '/requests')) as { requests: Array<{ method: string; status: number }> };
    expect(log.requests.map((r) => `${r.method} ${r.status}`)).toEqual(['GET 503', 'GET 200']);
  });
});
