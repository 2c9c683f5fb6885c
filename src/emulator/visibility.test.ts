import { afterEach, describe, expect, it } from 'vitest';
import type { RunItem, RunPage } from '../core/ports/agent-runs.js';
import { creatorUidFor, startEmulator, type RunningEmulator } from './index.js';

const SERVICE = 'service-key-0001';
const ANN = 'personal-key-ann-A1b2';
const BOB = 'personal-key-bob-C3d4';

let emu: RunningEmulator;

afterEach(async () => {
  await emu.close();
});

type Body = Partial<RunItem> & Partial<RunPage> & { detail?: string; error?: string; type?: string; uid?: string; key_last_four?: string | null };

async function call(key: string | null, method: string, path: string, body?: unknown): Promise<{ status: number; body: Body | undefined }> {
  const headers: Record<string, string> = {};
  if (key !== null) headers['authorization'] = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${emu.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Body) : undefined };
}

async function control(method: string, path: string, body?: unknown): Promise<{ status: number; body: Body | undefined }> {
  const res = await fetch(`${emu.url}/_emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Body) : undefined };
}

async function create(key: string, prompt: string): Promise<string> {
  const answer = await call(key, 'POST', '/agent/run', { prompt });
  expect(answer.status).toBe(200);
  return answer.body?.run_id as string;
}

const idsOf = (body: Body | undefined): string[] => (body?.runs ?? []).map((run) => run.run_id).sort();

describe('owner visibility', () => {
  it('shows each key only the runs it created: list, get, follow-up and cancel of another key’s run are 404', async () => {
    emu = await startEmulator({ apiKey: SERVICE, manual: true, visibility: 'owner' });
    const annRun = await create(ANN, 'Ann’s work');
    const bobRun = await create(BOB, 'Bob’s work');
    const serviceRun = await create(SERVICE, 'The bot’s work');

    expect(idsOf((await call(ANN, 'GET', '/agent/runs')).body)).toEqual([annRun]);
    expect(idsOf((await call(BOB, 'GET', '/agent/runs?limit=10')).body)).toEqual([bobRun]);
    expect(idsOf((await call(SERVICE, 'GET', '/agent/runs')).body)).toEqual([serviceRun]);
    // A creator filter for someone else's key finds nothing rather than their runs.
    expect(idsOf((await call(ANN, 'GET', `/agent/runs?creator=${creatorUidFor(BOB)}`)).body)).toEqual([]);

    expect((await call(ANN, 'GET', `/agent/runs/${annRun}`)).body).toMatchObject({ run_id: annRun, creator: { type: 'user', uid: creatorUidFor(ANN) } });
    const hidden = await call(ANN, 'GET', `/agent/runs/${bobRun}`);
    expect(hidden).toMatchObject({ status: 404, body: { error: 'resource_not_found', detail: `run ${bobRun} not found` } });
    expect((await call(ANN, 'POST', `/agent/runs/${bobRun}/followups`, { message: 'psst' })).status).toBe(404);
    expect((await call(ANN, 'POST', `/agent/runs/${bobRun}/cancel`)).status).toBe(404);
    // Nothing reached Bob's run.
    expect(emu.engine.followups(bobRun)).toEqual([]);
    expect(emu.engine.get(bobRun)?.state).toBe('QUEUED');

    // Its own key may.
    expect((await call(BOB, 'POST', `/agent/runs/${bobRun}/followups`, { message: 'go on' })).status).toBe(200);
    expect((await call(BOB, 'POST', `/agent/runs/${bobRun}/cancel`)).status).toBe(200);
    expect(emu.engine.get(bobRun)?.state).toBe('CANCELLED');
  });

  it('tells tests which key created a run, by its principal and last 4 characters only', async () => {
    emu = await startEmulator({ apiKey: SERVICE, manual: true, visibility: 'owner' });
    const annRun = await create(ANN, 'Ann’s work');
    const serviceRun = await create(SERVICE, 'The bot’s work');
    expect(await control('GET', `/runs/${annRun}/creator`)).toEqual({ status: 200, body: { type: 'user', uid: creatorUidFor(ANN), key_last_four: 'A1b2' } });
    expect((await control('GET', `/runs/${serviceRun}/creator`)).body).toEqual({ type: 'service_account', uid: creatorUidFor(SERVICE), key_last_four: '0001' });
    expect((await control('GET', '/runs/run_nope/creator')).status).toBe(404);
    expect(emu.engine.creatorOf(annRun)).toEqual({ type: 'user', uid: creatorUidFor(ANN), keyLastFour: 'A1b2' });
  });

  it('answers 401 for a revoked key from then on, and only for that key; a reset forgets revocations', async () => {
    emu = await startEmulator({ apiKey: SERVICE, manual: true, visibility: 'owner' });
    const annRun = await create(ANN, 'Ann’s work');
    expect(await control('POST', '/keys/revoke', { key: ANN })).toEqual({ status: 200, body: {} });
    expect(await call(ANN, 'GET', '/agent/runs')).toMatchObject({ status: 401, body: { error: 'authentication_required' } });
    expect((await call(ANN, 'POST', `/agent/runs/${annRun}/followups`, { message: 'still there?' })).status).toBe(401);
    expect((await call(ANN, 'POST', '/agent/run', { prompt: 'again' })).status).toBe(401);
    expect((await call(BOB, 'GET', '/agent/runs')).status).toBe(200);
    // A bad request changes nothing.
    expect((await control('POST', '/keys/revoke', { key: '' })).status).toBe(400);
    expect((await call(BOB, 'GET', '/agent/runs')).status).toBe(200);

    emu.keys.revoke(SERVICE);
    expect((await call(SERVICE, 'GET', '/agent/runs')).status).toBe(401);
    expect((await control('POST', '/reset', {})).status).toBe(200);
    expect((await call(ANN, 'GET', '/agent/runs')).status).toBe(200);
    expect((await call(SERVICE, 'GET', '/agent/runs')).status).toBe(200);
  });

  it('still refuses a request without a key', async () => {
    emu = await startEmulator({ apiKey: SERVICE, manual: true, visibility: 'owner' });
    expect((await call(null, 'GET', '/agent/runs')).status).toBe(401);
  });
});

describe('team visibility (the default)', () => {
  it('accepts the service key only, and shows it every run', async () => {
    emu = await startEmulator({ apiKey: SERVICE, manual: true });
    expect((await call(ANN, 'GET', '/agent/runs')).status).toBe(401);
    const serviceRun = await create(SERVICE, 'The bot’s work');
    const inProcess = emu.engine.createRun({ prompt: 'made in process' }).run_id;
    expect(idsOf((await call(SERVICE, 'GET', '/agent/runs')).body)).toEqual([serviceRun, inProcess].sort());
    expect((await call(SERVICE, 'GET', `/agent/runs/${serviceRun}`)).body?.creator).toEqual({ type: 'service_account', uid: creatorUidFor(SERVICE) });
  });

  it('with acceptAnyKey, takes personal keys too and lets every key see every run', async () => {
    emu = await startEmulator({ apiKey: SERVICE, manual: true, acceptAnyKey: true });
    const annRun = await create(ANN, 'Ann’s work');
    const bobRun = await create(BOB, 'Bob’s work');
    expect(idsOf((await call(ANN, 'GET', '/agent/runs')).body)).toEqual([annRun, bobRun].sort());
    expect((await call(ANN, 'GET', `/agent/runs/${bobRun}`)).body?.creator).toEqual({ type: 'user', uid: creatorUidFor(BOB) });
    expect((await call(ANN, 'POST', `/agent/runs/${bobRun}/cancel`)).status).toBe(200);
  });
});
