import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEngine } from './run-engine.js';
import { keepRunsInFile } from './run-file.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function fileIn(): string {
  const dir = mkdtempSync(join(tmpdir(), 'emulator-runs-'));
  dirs.push(dir);
  return join(dir, 'nested', 'runs.json');
}

const engine = () => new RunEngine({ manual: true, publicUrl: 'http://127.0.0.1:3000/emulator' });

describe('keeping the emulator’s runs in a file', () => {
  it('a second engine on the file has every run as it was — state, session, history, follow-ups, plan — and numbers new runs after them', () => {
    const path = fileIn();
    const before = engine();
    const kept = keepRunsInFile(before, path, (message) => expect.fail(message));
    const first = before.createRun({ prompt: 'first' });
    const second = before.createRun({ prompt: 'second\nemulate: pr' });
    before.drive(first.run_id, 'INPROGRESS');
    before.sendFollowup(first.run_id, 'also the docs');
    before.advance(second.run_id);
    kept.flush();
    kept.stop();
    expect(existsSync(path)).toBe(true);

    const problems: string[] = [];
    const after = engine();
    expect(keepRunsInFile(after, path, (message) => problems.push(message)).loaded).toBe(2);
    expect(problems).toEqual([]);
    for (const run of [first, second]) {
      expect(after.get(run.run_id)).toEqual(before.get(run.run_id));
      expect(after.history(run.run_id)).toEqual(before.history(run.run_id));
    }
    expect(after.followups(first.run_id)).toEqual([expect.objectContaining({ message: 'also the docs' })]);
    expect(after.getBySession(before.get(first.run_id)?.session_id ?? '')?.run_id).toBe(first.run_id);
    // The run that was on its way takes its next planned step.
    expect(after.advance(second.run_id).state).toBe('CLAIMED');
    const third = after.createRun({ prompt: 'third' });
    expect(after.list().runs.map((run) => run.run_id)).toEqual([third.run_id, second.run_id, first.run_id]);
  });

  it('writes once per turn of the event loop however many changes came, and not at all without one', async () => {
    const path = fileIn();
    const running = engine();
    keepRunsInFile(running, path, (message) => expect.fail(message));
    expect(existsSync(path)).toBe(false);
    const run = running.createRun({ prompt: 'many moves' });
    for (const state of ['PENDING', 'CLAIMED', 'INPROGRESS']) running.drive(run.run_id, state);
    expect(existsSync(path)).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    const reread = engine();
    keepRunsInFile(reread, path, (message) => expect.fail(message));
    expect(reread.get(run.run_id)?.state).toBe('INPROGRESS');
  });

  it('moves a file it cannot read aside, says so, and starts without runs', () => {
    const path = fileIn();
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, '{ not json');
    const problems: string[] = [];
    const fresh = engine();
    expect(keepRunsInFile(fresh, path, (message) => problems.push(message)).loaded).toBe(0);
    expect(problems).toEqual([expect.stringMatching(/could not read the emulator's runs from .*runs\.json .*moved it to .*runs\.json\.unreadable-\d+/)]);
    expect(readdirSync(join(path, '..')).some((name) => name.startsWith('runs.json.unreadable-'))).toBe(true);
    expect(fresh.list().runs).toEqual([]);
  });
});
