import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCliInProcess } from '../helpers/cli-context.js';
import { ROOT, runCli as runCliChild, startCli, tempDir } from '../helpers/spawn-cli.js';

/** Most cases run the command tree in-process; the child-process cases below cover the executable itself. */
const runCli = (args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) =>
  runCliInProcess(args, options.env ?? {}, options.cwd ?? tempDir());

const API_KEY = 'cli-test-key-5a1b2c3d';
let emulator: RunningEmulator;
let env: Record<string, string>;

beforeAll(async () => {
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, timings: { queuedMs: 20, pendingMs: 20, claimedMs: 20, workMs: 150 } });
  env = { AGENT_API_BASE_URL: emulator.baseUrl, AGENT_API_KEY: API_KEY };
});
afterAll(async () => {
  await emulator.close();
});

describe('agent-bridge run', () => {
  it('--wait follows a run to SUCCEEDED, prints the session link and exits 0', async () => {
    const result = await runCliChild(['run', 'hello', '--wait', '--poll', '100ms'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Started run run_\S+\.$/m);
    expect(result.stdout).toMatch(/^\[\s*[\d.]+s\] SUCCEEDED/m);
    const session = result.stdout.match(/^Session: (\S+)$/m)?.[1];
    expect(session).toBeDefined();
    const page = await fetch(session!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('hello');
    expect(result.stdout).toMatch(/Run run_\S+ succeeded\./);
  });

  it('--wait exits 1 and prints the failure message when the run fails', async () => {
    const result = await runCliChild(['run', 'do it\nemulate: fail the tests did not pass', '--wait', '--poll', '100ms'], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/ended FAILED: the tests did not pass/);
  });

  it('prints only the run id on stdout and sends the config flags', async () => {
    const mcpFile = join(tempDir(), 'mcp.json');
    writeFileSync(mcpFile, JSON.stringify({ github: { url: 'https://mcp.example/github' } }));
    const result = await runCli(['run', 'refactor', '--title', 'Refactor', '--name', 'nightly', '--model', 'm1', '--environment', 'env_1', '--mcp', mcpFile], {
      env,
    });
    expect(result.code).toBe(0);
    const runId = result.stdout.trim();
    expect(runId).toMatch(/^run_\S+$/);
    const get = await runCli(['runs', 'get', runId, '--json'], { env });
    const run = JSON.parse(get.stdout) as Record<string, unknown>;
    expect(run).toMatchObject({
      run_id: runId,
      title: 'Refactor',
      agent_config: { name: 'nightly', model_id: 'm1', environment_id: 'env_1', mcp_servers: { github: { url: 'https://mcp.example/github' } } },
    });
  });

  it('--json with --wait prints JSON only', async () => {
    const result = await runCli(['run', 'json please', '--wait', '--json', '--poll', '100ms'], { env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ state: 'SUCCEEDED', prompt: 'json please' });
  });
});

describe('agent-bridge runs', () => {
  it('list shows a table and --json an array of RunItems; --state filters', async () => {
    const created = (await runCli(['run', 'listed run', '--name', 'listing'], { env })).stdout.trim();
    const table = await runCli(['runs', 'list', '--name', 'listing'], { env });
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+STATE\s+TITLE\s+NAME\s+AGE$/);
    expect(table.stdout).toContain(created);
    const json = await runCli(['runs', 'list', '--name', 'listing', '--json'], { env });
    const runs = JSON.parse(json.stdout) as Array<{ run_id: string }>;
    expect(runs.map((run) => run.run_id)).toEqual([created]);
    const none = await runCli(['runs', 'list', '--name', 'listing', '--state', 'CANCELLED', '--json'], { env });
    expect(JSON.parse(none.stdout)).toEqual([]);
  });

  it('--all pages through every run; --limit caps', async () => {
    for (let index = 0; index < 4; index++) await runCli(['run', `bulk ${index}`, '--name', 'bulk'], { env });
    const limited = JSON.parse((await runCli(['runs', 'list', '--name', 'bulk', '--limit', '2', '--json'], { env })).stdout) as unknown[];
    expect(limited).toHaveLength(2);
    const all = JSON.parse((await runCli(['runs', 'list', '--name', 'bulk', '--all', '--json'], { env })).stdout) as unknown[];
    expect(all).toHaveLength(4);
  });

  it('followup and cancel', async () => {
    const runId = (await runCli(['run', 'slow one\nemulate: slow 1m', '--name', 'steer'], { env })).stdout.trim();
    const followup = await runCli(['runs', 'followup', runId, 'use pnpm'], { env });
    expect(followup).toMatchObject({ code: 0 });
    expect(followup.stdout).toContain(`Follow-up sent to run ${runId}.`);
    const followups = (await (await fetch(`${emulator.url}/_emulator/runs/${runId}/followups`)).json()) as { followups: Array<{ message: string }> };
    expect(followups.followups.map((entry) => entry.message)).toEqual(['use pnpm']);
    await fetch(`${emulator.url}/_emulator/runs/${runId}/state`, { method: 'POST', body: JSON.stringify({ state: 'INPROGRESS' }) });
    const cancel = await runCli(['runs', 'cancel', runId], { env });
    expect(cancel).toMatchObject({ code: 0 });
    const again = await runCli(['runs', 'cancel', runId], { env });
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/400: the run API rejected the request/);
  });

  it('get shows details with pull-request links', async () => {
    const result = await runCli(['run', 'open a PR\nemulate: pr', '--wait', '--poll', '100ms'], { env });
    expect(result.stdout).toMatch(/Pull request: https:\/\/github\.com\/example\/repo\/pull\/\d+/);
    const runId = result.stdout.match(/Run (run_\S+) succeeded/)?.[1];
    const details = await runCli(['runs', 'get', runId!], { env });
    expect(details.stdout).toMatch(/^State:\s+SUCCEEDED$/m);
    expect(details.stdout).toMatch(/^Pull request:\s+https:\/\/github\.com/m);
    expect(details.stdout).toMatch(/^Session:\s+http/m);
  });
});

describe('exit codes and errors', () => {
  it.each([
    ['no base URL', ['runs', 'list'], {}, 2, /AGENT_API_BASE_URL is not set/],
    ['no key', ['runs', 'list'], { AGENT_API_BASE_URL: 'http://127.0.0.1:1/api/v1' }, 2, /AGENT_API_KEY is not set/],
    ['unknown command', ['frobnicate'], {}, 2, /unknown command/],
    ['missing argument', ['runs', 'get'], {}, 2, /missing required argument/],
    ['bad --limit', ['runs', 'list', '--limit', 'x'], 'env', 2, /--limit/],
    ['empty prompt', ['run', '  '], 'env', 2, /prompt> is empty/],
    ['--factory with config flags', ['run', 'x', '--factory', 'f1', '--model', 'm'], 'env', 2, /--factory takes no run config: drop --model/],
    ['bad --mcp', ['run', 'x', '--mcp', '{nope'], 'env', 2, /--mcp: not valid JSON/],
    ['unknown run', ['runs', 'get', 'run_nope'], 'env', 3, /404: the run API does not know this run/],
  ] as const)('%s → exit %s', async (_what, args, extraEnv, code, message) => {
    const result = await runCli([...args], { env: extraEnv === 'env' ? env : extraEnv });
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });

  it('a wrong key exits 3, says what to check, and never prints the key', async () => {
    const result = await runCli(['runs', 'list'], { env: { ...env, AGENT_API_KEY: 'the-wrong-secret-key' } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('401: the run API refused the key; check AGENT_API_KEY');
    expect(result.stdout + result.stderr).not.toContain('the-wrong-secret-key');
  });

  it('an unreachable run API exits 3', async () => {
    const result = await runCli(['runs', 'list'], { env: { ...env, AGENT_API_BASE_URL: 'http://127.0.0.1:9/api/v1' } });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/could not reach the run API/);
  });

  it('reads .env from the working directory, the real environment winning', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, '.env'), `AGENT_API_BASE_URL=${emulator.baseUrl}\nAGENT_API_KEY=wrong-from-dotenv\n`);
    const fromDotenv = await runCliChild(['runs', 'list'], { cwd: dir });
    expect(fromDotenv.code).toBe(3);
    const realWins = await runCliChild(['runs', 'list', '--json'], { cwd: dir, env: { AGENT_API_KEY: API_KEY } });
    expect(realWins.code).toBe(0);
  });

  it('the executable prints usage for --help and exits 0', async () => {
    const result = await runCliChild(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: agent-bridge/m);
  });

  it.each([['--version'], ['-V']])('%s prints the version in package.json and exits 0', async (flag) => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = await runCli([flag]);
    expect(result).toEqual({ code: 0, stdout: version, stderr: '' });
  });

  it.each([[['run', '--help']], [['runs', 'list', '--help']], [['emulator', '--help']], [['config', 'check', '--help']], [['serve', '--help']]])(
    '%j prints usage and exits 0',
    async (args) => {
      const result = await runCli([...args]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: agent-bridge/m);
    },
  );
});

describe('agent-bridge config check', () => {
  it('says of each secret only whether it is set, where from and its length, never a prefix of it (issue 16)', async () => {
    const secrets = { key: 'Zk7q-run-api-key-0123456789', bot: 'xoxb-Qw3r-bot-token-0123456789', signing: 'Hh8s-signing-secret-0123456789' };
    const dir = tempDir();
    writeFileSync(join(dir, '.env'), `SLACK_BOT_TOKEN=${secrets.bot}\nSLACK_SIGNING_SECRET=${secrets.signing}\n`);
    const env = { AGENT_API_BASE_URL: 'https://agents.example.com/api/v1', AGENT_API_KEY: secrets.key };
    for (const args of [
      ['config', 'check', '--offline'],
      ['config', 'check', '--offline', '--json'],
    ]) {
      const result = await runCli(args, { env, cwd: dir });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`set (from env), ${secrets.key.length} characters`);
      expect(result.stdout).toContain(`set (from .env), ${secrets.bot.length} characters`);
      expect(result.stdout).toContain(`set (from .env), ${secrets.signing.length} characters`);
      for (const secret of Object.values(secrets)) {
        for (let length = 3; length <= secret.length; length++) expect(result.stdout + result.stderr).not.toContain(secret.slice(0, length));
      }
    }
  });
});

describe('agent-bridge emulator', () => {
  it('serves the API with the given key until stopped', async () => {
    const emulatorCli = startCli(['emulator', '--port', '0', '--api-key', 'emu-key-123456']);
    const [, baseUrl] = await emulatorCli.waitFor(/listening on (\S+)/);
    const denied = await fetch(`${baseUrl}/agent/runs`);
    expect(denied.status).toBe(401);
    const allowed = await fetch(`${baseUrl}/agent/runs`, { headers: { authorization: 'Bearer emu-key-123456' } });
    expect(allowed.status).toBe(200);
    expect(await emulatorCli.stop()).toBe(0);
    expect(emulatorCli.output.stdout).not.toContain('emu-key-123456');
  });

  it('--visibility owner: any key is accepted and sees only the runs it created (issue 20)', async () => {
    const emulatorCli = startCli(['emulator', '--port', '0', '--api-key', 'emu-key-123456', '--visibility', 'owner', '--manual']);
    const [, baseUrl] = await emulatorCli.waitFor(/listening on (\S+)/);
    const as = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
    const created = await fetch(`${baseUrl}/agent/run`, { method: 'POST', headers: as('personal-key-ann'), body: JSON.stringify({ prompt: 'hi' }) });
    const { run_id: runId } = (await created.json()) as { run_id: string };
    const own = (await (await fetch(`${baseUrl}/agent/runs`, { headers: as('personal-key-ann') })).json()) as { runs: { run_id: string }[] };
    const others = (await (await fetch(`${baseUrl}/agent/runs`, { headers: as('emu-key-123456') })).json()) as { runs: unknown[] };
    expect(own.runs.map((run) => run.run_id)).toEqual([runId]);
    expect(others.runs).toEqual([]);
    expect((await fetch(`${baseUrl}/agent/runs/${runId}`, { headers: as('emu-key-123456') })).status).toBe(404);
    expect(await emulatorCli.stop()).toBe(0);
    expect(emulatorCli.output.stdout).toContain('Visibility: owner');
  });

  it('refuses an unknown --visibility with exit 2, naming the flag', async () => {
    const result = await runCli(['emulator', '--port', '0', '--visibility', 'everyone']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--visibility: expected owner or team, got "everyone"');
  });
});
