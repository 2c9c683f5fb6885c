import { existsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli, startCli, tempDir } from '../helpers/spawn-cli.js';

const LISTENING = /"url":"(http:\/\/[^"]+)".*agent-bridge is listening/;

describe('agent-bridge serve with no configuration at all', () => {
  it('starts the emulator, serves health, readiness and metrics, says how to enable integrations, stops cleanly', async () => {
    const cwd = tempDir();
    const serve = startCli(['serve'], { cwd, env: { PORT: '0', HOST: '127.0.0.1' } });
    const { output } = serve;
    const [, url] = await serve.waitFor(LISTENING);
    await serve.waitFor(/ready to serve/);

    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', agent_api: 'ok' } });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain('agent_bridge_http_requests_total{route="/readyz",method="GET",status="200"} 1');
    // The replica behind these metrics: this child (pid) on this machine, the same pair its log lines carry.
    const replica = /^agent_bridge_replica_info\{host="([^"]*)",pid="(\d+)",version="[^"]+"\} 1$/m.exec(metrics);
    expect(replica?.slice(1)).toEqual([hostname(), String(serve.child.pid)]);
    expect((await fetch(`${url}/slack/events`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${url}/linear/webhook`, { method: 'POST' })).status).toBe(404);
    // The service's own address leads to the console (on with the built-in emulator); other unknown paths stay 404.
    const root = await fetch(`${url}/`, { redirect: 'manual' });
    expect([root.status, root.headers.get('location')]).toEqual([303, '/console']);
    const unknown = await fetch(`${url}/nothing-here`);
    expect([unknown.status, await unknown.json()]).toEqual([404, { error: 'not_found', message: 'no route /nothing-here' }]);
    const jira = await fetch(`${url}/jira/webhook`, { method: 'POST' });
    expect(jira.status).toBe(404);
    expect(await jira.json()).toMatchObject({
      error: 'not_configured',
      message: expect.stringMatching(/set JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN and JIRA_WEBHOOK_SECRET/),
    });

    expect(output.stdout).toMatch(/BUILT-IN RUN-API EMULATOR/);
    expect(output.stdout).toMatch(/Jira: off — set JIRA_BASE_URL/);
    expect(output.stdout).toMatch(/Slack: off — set SLACK_BOT_TOKEN/);
    expect(output.stdout).toMatch(/Linear: off — set LINEAR_API_KEY/);
    expect(existsSync(join(cwd, 'data', 'agent-bridge.db'))).toBe(true);

    expect(await serve.stop('SIGTERM')).toBe(0);
    expect(output.stdout).toMatch(/"msg":"stopped"/);
    // Every line names the replica, from the emulator's warning to the last one.
    const lines = output.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThanOrEqual(8);
    for (const line of lines) expect(line).toMatchObject({ hostname: hostname(), pid: serve.child.pid });
  });

  it('SIGINT stops it too', async () => {
    const serve = startCli(['serve'], { env: { PORT: '0', HOST: '127.0.0.1' } });
    await serve.waitFor(/ready to serve/);
    expect(await serve.stop('SIGINT')).toBe(0);
  });
});

describe('agent-bridge serve against a configured run API', () => {
  const apiKey = 'serve-test-secret-key-0123456789';
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ apiKey, port: 0, manual: true });
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('is not ready while the run API refuses the key: the reason goes to the log, never to the anonymous caller, and never the key', async () => {
    const wrongKey = 'wrong-secret-key-abcdefghij';
    const serve = startCli(['serve'], {
      env: { PORT: '0', HOST: '127.0.0.1', AGENT_API_BASE_URL: emulator.baseUrl, AGENT_API_KEY: wrongKey, LOG_LEVEL: 'debug' },
    });
    const { output } = serve;
    const [, url] = await serve.waitFor(LISTENING);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'not_ready', checks: { database: 'ok', agent_api: 'fail' } });
    await serve.waitFor(/readiness check failed.*check AGENT_API_KEY|check AGENT_API_KEY.*readiness check failed/);
    expect(await serve.stop()).toBe(0);
    expect(output.stdout + output.stderr).not.toContain(wrongKey);
  });

  it('config check says why the run API is not ready (the detail /readyz keeps to itself), and exits 0', async () => {
    const wrongKey = 'wrong-secret-key-abcdefghij';
    const refused = await runCli(['config', 'check'], { env: { AGENT_API_BASE_URL: emulator.baseUrl, AGENT_API_KEY: wrongKey } });
    expect(refused.code).toBe(0);
    expect(refused.stdout).toContain('Run API readiness: failing — 401: the run API refused the key; check AGENT_API_KEY');
    expect(refused.stdout + refused.stderr).not.toContain(wrongKey);
    const fine = await runCli(['config', 'check'], { env: { AGENT_API_BASE_URL: emulator.baseUrl, AGENT_API_KEY: apiKey } });
    expect(fine.stdout).toContain('Run API readiness: ok');
    const offline = await runCli(['config', 'check', '--offline'], { env: { AGENT_API_BASE_URL: emulator.baseUrl, AGENT_API_KEY: wrongKey } });
    expect(offline.stdout).not.toContain('Run API readiness');
  });

  it('is ready with the right key', async () => {
    const serve = startCli(['serve'], { env: { PORT: '0', HOST: '127.0.0.1', AGENT_API_BASE_URL: emulator.baseUrl, AGENT_API_KEY: apiKey } });
    const { output } = serve;
    const [, url] = await serve.waitFor(LISTENING);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    // The console is off (a real run API, no token): the address says what this is and where to look, in plain text.
    const root = await fetch(`${url}/`, { redirect: 'manual' });
    expect([root.status, root.headers.get('content-type')]).toEqual([200, 'text/plain; charset=utf-8']);
    const text = await root.text();
    expect(text).toMatch(/^agent-bridge: /);
    expect(text).toContain('/healthz');
    expect(text).toContain('/console is off here; AGENT_API_BASE_URL names a real run API');
    expect(text).toContain('set CONSOLE_ADMIN_TOKEN (at least 32 characters)');
    expect(await serve.stop()).toBe(0);
    // The start log says it too, once.
    expect(output.stdout.match(/web console is off: AGENT_API_BASE_URL names a real run API/g)).toHaveLength(1);
    expect(output.stdout).not.toContain(apiKey);
    expect(output.stdout).not.toMatch(/EMULATOR/);
  });
});

describe('agent-bridge serve and config check refuse a broken configuration', () => {
  const broken = ['tracker:', '  interval: soon', 'slak: {}', ''].join('\n');

  it('serve exits 2 listing every problem by key path, before opening anything', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'agent-bridge.yml'), broken);
    const result = await runCli(['serve'], { cwd, env: { PORT: '0' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/agent-bridge\.yml: tracker\.interval/);
    expect(result.stderr).toMatch(/agent-bridge\.yml: slak: unknown key/);
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });

  it('serve exits 2 on a partial Slack set, naming what is missing', async () => {
    const result = await runCli(['serve'], { env: { PORT: '0', SLACK_BOT_TOKEN: 'xoxb-0000-1111-abcdefghijkl' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/SLACK_SIGNING_SECRET/);
    expect(result.stderr).not.toContain('xoxb-0000-1111-abcdefghijkl');
  });

  it('serve exits 2 on a partial Jira set, naming what is missing and where Atlassian shows an API token', async () => {
    const token = 'ATATT3x-jira-token-abcdefghijkl';
    const result = await runCli(['serve'], { env: { PORT: '0', JIRA_BASE_URL: 'https://acme.atlassian.net', JIRA_API_TOKEN: token } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/JIRA_EMAIL: Jira is half configured/);
    expect(result.stderr).toMatch(/JIRA_WEBHOOK_SECRET: Jira is half configured/);
    expect(result.stderr).not.toContain(token);
  });

  it('config check prints the effective configuration with secrets masked', async () => {
    const secret = 'signing-secret-0123456789abcdef';
    const result = await runCli(['config', 'check'], { env: { SLACK_BOT_TOKEN: 'xoxb-0000-1111-abcdefghijkl', SLACK_SIGNING_SECRET: secret } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Configuration is valid/);
    expect(result.stdout).toMatch(/Slack: on/);
    expect(result.stdout).not.toContain(secret);
    expect(result.stdout).not.toContain('abcdefghijkl');
  });

  it('config check on a broken file exits 2', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'broken.yml'), broken);
    const result = await runCli(['config', 'check', '--config', 'broken.yml'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/broken\.yml: tracker\.interval/);
  });
});
