/**
 * `agent-bridge run` without AGENT_API_BASE_URL hands the prompt to the service on the same database,
 * which starts and tracks the run with its built-in emulator: the run shows in the console, and
 * `--wait` follows it from the database. The README's walkthrough (two shells) is run as two real
 * processes; the other cases run the command tree in this process beside a service started here.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { startService, type RunningService } from '../../src/main.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { runCliInProcess } from '../helpers/cli-context.js';
import { freePort } from '../fakes/oidc-provider.js';
import { runCli, startCli, tempDir } from '../helpers/spawn-cli.js';

const LISTENING = /"url":"(http:\/\/[^"]+)".*agent-bridge is listening/;

describe('the README walkthrough: `npm start` in one shell, `agent-bridge run` in another', () => {
  it('starts a run the service tracks (source cli, in the console) and follows it to SUCCEEDED, exit 0; no second emulator', async () => {
    const cwd = tempDir();
    // As an operator would: the same folder and settings in both shells (a fixed port, so the command knows the console's address).
    const env = { PORT: String(await freePort()), HOST: '127.0.0.1' };
    const serve = startCli(['serve'], { cwd, env });
    try {
      const [, url] = await serve.waitFor(LISTENING);
      await serve.waitFor(/ready to serve/);
      const result = await runCli(['run', 'hello', '--wait', '--poll', '100ms'], { cwd, env });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const runId = /^Started run (run_[0-9a-f]+)\. In the console: (\S+)$/m.exec(result.stdout)?.[1] ?? '';
      expect(result.stdout).toContain(`In the console: ${url}/console/run?id=${runId}`);
      expect(result.stdout).toMatch(/\]\s+QUEUED[\s\S]*\]\s+SUCCEEDED {2}Completed\n/);
      expect(result.stdout).toMatch(new RegExp(`Run ${runId} succeeded\\.\\nSession: http://\\S+/sessions/sess_[0-9a-f]+\\n$`));
      // The service's own database lists it as the console does, as a run of the command line.
      const store = openSqliteStore({ path: join(cwd, 'data', 'agent-bridge.db') });
      try {
        const listed = await store.operator.listRuns({ source: 'cli', limit: 10 });
        expect(listed.map((run) => [run.runId, run.state, run.title])).toEqual([[runId, 'SUCCEEDED', 'hello']]);
      } finally {
        await store.close();
      }
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  }, 60_000);
});

describe('agent-bridge run through the service', () => {
  let cwd: string;
  let service: RunningService;
  const env = () => ({ DATABASE_PATH: join(cwd, 'data', 'bridge.db'), PORT: '0', HOST: '127.0.0.1' });
  const cli = (args: string[]) => runCliInProcess(args, env(), cwd);

  beforeAll(async () => {
    cwd = tempDir();
    // The tracker looks every second (default 10 s): --wait sees an end soon after the emulator reaches it.
    writeFileSync(join(cwd, 'agent-bridge.yml'), 'tracker:\n  interval: 1s\n');
    service = await startService({ config: loadConfig({ cwd, env: env() }), logger: new CapturingLogger() });
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('without --wait prints the run id once the service created it; --json prints JSON only', async () => {
    const plain = await cli(['run', 'Tidy the docs', '--title', 'Docs tidy-up']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^run_[0-9a-f]+$/);
    expect(plain.stderr).toContain('through the agent-bridge service on');
    const run = await service.store.trackedRuns.get(plain.stdout);
    expect(run).toMatchObject({ source: 'cli', title: 'Docs tidy-up', routeName: 'cli' });
    expect(run?.anchor).toMatch(/^log:cli:[0-9a-f]{24}$/);

    const json = await cli(['run', 'Another one', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ run_id: expect.stringMatching(/^run_/), state: expect.any(String) });
  });

  it('--wait exits 1 when the run ends otherwise, saying how', async () => {
    const result = await cli(['run', 'Try it\nemulate: fail the tests did not pass', '--wait', '--poll', '100ms']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/ended FAILED: the tests did not pass/);
  });

  it('--wait --json prints the final run as JSON only', async () => {
    const result = await cli(['run', 'Open a PR\nemulate: pr', '--wait', '--json', '--poll', '100ms']);
    expect(result.code).toBe(0);
    const final = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(final).toMatchObject({ state: 'SUCCEEDED', source: 'cli', title: 'Open a PR' });
    expect(final['artifacts']).toEqual([{ artifact_type: 'PULL_REQUEST', data: { url: expect.stringMatching(/^https:\/\/github\.com\//) } }]);
  });

  it('refuses run-config flags, which only a run API called directly takes: exit 2, nothing stored', async () => {
    const before = await service.store.triggers.countByState();
    const result = await cli(['run', 'x', '--model', 'm1', '--name', 'mine']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--name, --model need AGENT_API_BASE_URL: without it the run is handed to the agent-bridge service/);
    expect(await service.store.triggers.countByState()).toEqual(before);
  });
});

describe('agent-bridge run with no service to hand the prompt to', () => {
  it('says so, exit 2, and stores nothing: no database yet, or a database no service runs on', async () => {
    const cwd = tempDir();
    const env = { DATABASE_PATH: join(cwd, 'data', 'bridge.db') };
    const none = await runCliInProcess(['run', 'hello'], env, cwd);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no agent-bridge database at .*bridge\.db: start the service here first .*or set AGENT_API_BASE_URL/);
    expect(existsSync(env.DATABASE_PATH)).toBe(false);

    // A database a stopped service left behind.
    mkdirSync(join(cwd, 'data'));
    const store = openSqliteStore({ path: env.DATABASE_PATH });
    await store.close();
    const stopped = await runCliInProcess(['run', 'hello'], env, cwd);
    expect(stopped.code).toBe(2);
    expect(stopped.stderr).toMatch(/no agent-bridge service is running on .*bridge\.db: start it \(`npm start`\)/);
    const after = openSqliteStore({ path: env.DATABASE_PATH });
    try {
      expect(Object.values(await after.triggers.countByState()).every((count) => count === 0)).toBe(true);
    } finally {
      await after.close();
    }
  });
});
