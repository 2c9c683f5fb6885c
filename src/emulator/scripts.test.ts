import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunItem } from '../core/ports/agent-runs.js';
import { startEmulator, type RunningEmulator } from './index.js';
import { parseScript } from './script.js';

const KEY = 'script-key';
const FAST = { queuedMs: 5, pendingMs: 5, claimedMs: 5, workMs: 10 };

let emu: RunningEmulator;

async function create(prompt: string): Promise<string> {
  const res = await fetch(`${emu.baseUrl}/agent/run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
  });
  return ((await res.json()) as { run_id: string }).run_id;
}

async function getRun(id: string): Promise<RunItem> {
  const res = await fetch(`${emu.baseUrl}/agent/runs/${id}`, { headers: { authorization: `Bearer ${KEY}` } });
  return (await res.json()) as RunItem;
}

async function followup(id: string, message: string): Promise<number> {
  const res = await fetch(`${emu.baseUrl}/agent/runs/${id}/followups`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message }),
  });
  return res.status;
}

const states = (id: string): string[] => emu.engine.history(id).map((h) => h.state);

beforeEach(async () => {
  emu = await startEmulator({ apiKey: KEY, timings: FAST });
});

afterEach(async () => {
  await emu.close();
});

describe('automatic progression', () => {
  it('goes QUEUED → PENDING → CLAIMED → INPROGRESS → SUCCEEDED', async () => {
    const id = await create('Just do it');
    await expect.poll(async () => (await getRun(id)).state).toBe('SUCCEEDED');
    expect(states(id)).toEqual(['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'SUCCEEDED']);
    const run = await getRun(id);
    expect(run).toMatchObject({ status_message: { message: 'Completed' }, artifacts: [], is_sandbox_running: false });
    expect(run.started_at).not.toBeNull();
    expect(run.session_link).toContain(run.session_id);
  });

  it('close() stops every timer', async () => {
    const id = await create('p');
    emu.engine.close();
    const frozen = states(id);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(states(id)).toEqual(frozen);
    expect(emu.engine.get(id)?.state).not.toBe('SUCCEEDED');
  });

  it('manual mode never moves a run on its own', async () => {
    const manual = await startEmulator({ apiKey: KEY, manual: true, timings: { queuedMs: 1, pendingMs: 1, claimedMs: 1, workMs: 1 } });
    try {
      const id = manual.engine.createRun({ prompt: 'p' }).run_id;
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(manual.engine.get(id)?.state).toBe('QUEUED');
    } finally {
      await manual.close();
    }
  });
});

describe('scripted outcomes', () => {
  it('emulate: fail ends FAILED with a structured status message', async () => {
    const id = await create('Fix it\nEMULATE: Fail tests are red');
    const run = await emu.engine.waitFor(id, 'FAILED');
    expect(run.status_message).toEqual({ message: 'tests are red', retryable: false });
    expect(states(id)).toEqual(['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'FAILED']);
  });

  it('emulate: error ends ERROR, retryable', async () => {
    const id = await create('emulate: error sandbox crashed');
    const run = await emu.engine.waitFor(id, 'ERROR');
    expect(run.status_message).toEqual({ message: 'sandbox crashed', error_code: 'internal_error', retryable: true });
  });

  it('emulate: block waits for a follow-up, then finishes', async () => {
    const id = await create('Refactor\nemulate: block Which branch?');
    const blocked = await emu.engine.waitFor(id, 'BLOCKED');
    expect(blocked.status_message).toEqual({ message: 'Waiting for input: Which branch?' });
    // Several work periods later it is still waiting.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(emu.engine.get(id)?.state).toBe('BLOCKED');
    expect(await followup(id, 'use main')).toBe(200);
    await emu.engine.waitFor(id, 'SUCCEEDED');
    expect(states(id)).toEqual(['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'BLOCKED', 'INPROGRESS', 'SUCCEEDED']);
  });

  it('emulate: pr succeeds with a pull-request artifact', async () => {
    const id = await create('Update deps  emulate: pr');
    const run = await emu.engine.waitFor(id, 'SUCCEEDED');
    expect(run.artifacts).toEqual([
      {
        artifact_type: 'PULL_REQUEST',
        created_at: run.updated_at,
        data: { url: expect.stringMatching(/^https:\/\/github\.com\/example\/repo\/pull\/\d+$/), branch: `agent/${id}` },
      },
    ]);
  });

  it('emulate: slow makes INPROGRESS last the given time', async () => {
    const id = await create('emulate: slow 150ms');
    await emu.engine.waitFor(id, 'SUCCEEDED');
    const history = emu.engine.history(id);
    const at = (state: string): number => Date.parse(history.find((h) => h.state === state)?.at ?? '');
    expect(at('SUCCEEDED') - at('INPROGRESS')).toBeGreaterThanOrEqual(140);
  });

  it('emulate: state passes through an unknown state between CLAIMED and INPROGRESS', async () => {
    const id = await create('emulate: state waiting_for_review\nemulate: pr');
    const seen = await emu.engine.waitFor(id, 'WAITING_FOR_REVIEW');
    expect(seen.is_sandbox_running).toBe(true);
    await emu.engine.waitFor(id, 'SUCCEEDED');
    expect(states(id)).toEqual(['QUEUED', 'PENDING', 'CLAIMED', 'WAITING_FOR_REVIEW', 'INPROGRESS', 'SUCCEEDED']);
  });

  it('a follow-up on an ended run runs it again, with the script minus block', async () => {
    const id = await create('emulate: block\nemulate: pr');
    await emu.engine.waitFor(id, 'BLOCKED');
    await followup(id, 'go on');
    await emu.engine.waitFor(id, 'SUCCEEDED');
    const before = emu.engine.history(id).length;

    await followup(id, 'and also the docs');
    await emu.engine.waitFor(id, (run) => run.state === 'SUCCEEDED' && emu.engine.history(id).length > before);
    expect(states(id).slice(before)).toEqual(['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'SUCCEEDED']);
    // The pull request is the same one, not a second artifact.
    expect(emu.engine.get(id)?.artifacts).toHaveLength(1);
    expect(emu.engine.followups(id).map((f) => f.message)).toEqual(['go on', 'and also the docs']);
  });

  it('a cancelled run stops moving', async () => {
    const id = await create('emulate: slow 30ms');
    await emu.engine.waitFor(id, 'INPROGRESS');
    emu.engine.cancel(id);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(states(id)).toEqual(['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'CANCELLED']);
  });
});

describe('parseScript', () => {
  it('reads directives case-insensitively, anywhere in a line, several per prompt', () => {
    expect(parseScript('@agent please Emulate: FAIL Boom Here\nemulate: pr emulate: slow 2s\nemulate: state review_me\nemulate: block')).toEqual({
      outcome: { kind: 'fail', message: 'Boom Here' },
      pr: true,
      slowMs: 2000,
      passThrough: ['REVIEW_ME'],
      block: { question: 'please confirm how to proceed' },
    });
  });

  it('ignores unknown directives, bad durations and terminal pass-through states', () => {
    expect(parseScript('emulate: dance\nemulate: slow fast\nemulate: state SUCCEEDED')).toEqual({ pr: false, passThrough: [] });
    expect(parseScript('emulate: slow 3m').slowMs).toBe(180_000);
    expect(parseScript('emulate: slow 250 ms').slowMs).toBe(250);
    expect(parseScript('emulate: error').outcome).toEqual({ kind: 'error', message: expect.any(String) });
  });

  it.each([
    ['emulate: fail environment_setup_failed npm install failed', { kind: 'fail', code: 'environment_setup_failed', message: 'npm install failed' }],
    ['emulate: error resource_unavailable', { kind: 'error', code: 'resource_unavailable', message: 'The run stopped on an internal error' }],
    ['emulate: fail agent_failed tests are red', { kind: 'fail', message: 'agent_failed tests are red' }],
    ['emulate: fail Internal_Error boom', { kind: 'fail', message: 'Internal_Error boom' }],
  ])('reads an error code of the SDK set as the first word of %j', (prompt, outcome) => {
    expect(parseScript(prompt).outcome).toEqual(outcome);
  });
});
