/**
 * The built-in emulator across a restart of the service: its runs are kept beside the SQLite database
 * and taken back at start, a run that was under way goes on, and the session links the service stored
 * point at its own port, where the emulator's session pages are served — so they still open after the
 * restart. The service runs in this process, configured as `npm start` is (no run API, a fixed port).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { startService, type RunningService } from '../../src/main.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { freePort } from '../fakes/oidc-provider.js';
import { runCliInProcess } from '../helpers/cli-context.js';
import { tempDir } from '../helpers/spawn-cli.js';
import { until } from '../helpers/until.js';

const cwd = tempDir();
writeFileSync(join(cwd, 'agent-bridge.yml'), 'tracker:\n  interval: 1s\n');
let env: Record<string, string>;
let service: RunningService | undefined;

async function start(logger = new CapturingLogger()): Promise<RunningService> {
  env ??= { DATABASE_PATH: join(cwd, 'data', 'agent-bridge.db'), PORT: String(await freePort()), HOST: '127.0.0.1' };
  service = await startService({ config: loadConfig({ cwd, env }), logger });
  return service;
}

/** A run as the built-in emulator answers it (it accepts any key: a trial runs under people's keys too). */
async function emulated(running: RunningService, runId: string): Promise<{ state?: string; session_link?: string }> {
  const answer = await fetch(`${running.agentApiBaseUrl}/agent/runs/${runId}`, { headers: { authorization: 'Bearer any-key-will-do' } });
  return answer.status === 200 ? ((await answer.json()) as { state?: string; session_link?: string }) : {};
}

afterAll(async () => {
  await service?.stop();
});

describe('the built-in emulator across a restart', () => {
  it('keeps its runs beside the database, goes on with a run under way, and old session links still open', async () => {
    const first = await start();
    const done = await runCliInProcess(['run', 'Write the changelog', '--wait', '--poll', '100ms'], env, cwd);
    expect(done.code).toBe(0);
    const link = /^Session: (\S+)$/m.exec(done.stdout)?.[1] ?? '';
    // On the service's own port, under /emulator: the address outlives the emulator's random one.
    expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${env['PORT']}/emulator/sessions/sess_[0-9a-f]+$`));
    expect((await fetch(link)).status).toBe(200);
    const doneId = /^Run (run_[0-9a-f]+) succeeded\.$/m.exec(done.stdout)?.[1] ?? '';
    expect((await first.store.trackedRuns.get(doneId))?.sessionLink).toBe(link);

    // A run still on its way when the service stops.
    const started = await runCliInProcess(['run', 'Slow work\nemulate: slow 2s'], env, cwd);
    const underWay = started.stdout.trim();
    expect(underWay).toMatch(/^run_/);
    expect((await emulated(first, underWay)).state).not.toBe('SUCCEEDED');
    await first.stop();
    service = undefined;
    expect(existsSync(join(cwd, 'data', 'agent-bridge.emulator-runs.json'))).toBe(true);

    const logger = new CapturingLogger();
    const second = await start(logger);
    const warning = logger.lines.find((line) => line.msg?.includes('BUILT-IN RUN-API EMULATOR'))?.msg ?? '';
    expect(warning).toContain(
      `Its runs are kept in ${join(cwd, 'data', 'agent-bridge.emulator-runs.json')} (2 taken back at this start; a run under way when the service stopped goes on)`,
    );
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Write the changelog');
    expect(await emulated(second, doneId)).toMatchObject({ state: 'SUCCEEDED', session_link: link });
    // The run under way ends after the restart, and the service's tracker sees it end.
    await until(async () => (await emulated(second, underWay)).state === 'SUCCEEDED', 'the run under way to end', 15_000);
    await until(async () => (await second.store.trackedRuns.get(underWay))?.state === 'SUCCEEDED', 'the tracker to see it end', 15_000);
    // Only the session pages are served on the service's port: not the emulator's API or its testing endpoints.
    expect((await fetch(`http://127.0.0.1:${env['PORT']}/emulator/api/v1/agent/runs`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${env['PORT']}/emulator/sessions/sess_unknown`)).status).toBe(404);
  }, 60_000);
});
