/**
 * What the intake benches measure, each on its own loopback port in this process:
 *
 * - the full service (`startService`) on a fresh SQLite file, Slack or Linear on, talking to the
 *   fakes and the emulator of the "world" child;
 * - the baselines: a bare Bolt app on Bolt's own HTTPReceiver that only acknowledges, and a bare
 *   node:http handler that reads the body, checks the Linear signature and answers 200.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';
import { loadConfig } from '../src/config/index.js';
import { readBody } from '../src/http/read-body.js';
import { verifyLinearSignature } from '../src/linear/verify-webhook.js';
import { createLogger } from '../src/log/create-logger.js';
import { startService, type RunningService } from '../src/main.js';
import type { WorldUrls } from './outside.js';

export const SLACK_SECRET = 'bench-slack-signing-secret-0123456789';
export const SLACK_TOKEN = 'xoxb-0000-1111-bench-token';
export const LINEAR_SECRET = 'bench-linear-webhook-secret-0123456789';
export const LINEAR_KEY = 'lin_api_bench_0123456789abcdef';
export const RUN_API_KEY = 'bench-intake-run-api-key';
export const JIRA_SECRET = 'bench-jira-webhook-secret-0123456789';
export const JIRA_EMAIL = 'bench-bot@acme.example';
export const JIRA_TOKEN = 'bench-jira-api-token-0123456789';

export interface Server {
  url: string;
  stop(): Promise<void>;
}

export interface BenchService extends Server {
  service: RunningService;
  /** What the service's background work had done by now (triggers worked, messages delivered). */
  progress(): Promise<{ stored: number; worked: number; outboxSent: number; outboxOpen: number }>;
}

/**
 * The full service with only Slack (HTTP) or only Linear on, on a fresh database in the temp folder
 * (or under BENCH_DB_DIR, e.g. /dev/shm to take the disk out of the figures).
 */
export async function startBenchService(kind: 'slack' | 'linear', world: WorldUrls): Promise<BenchService> {
  const cwd = mkdtempSync(join(process.env['BENCH_DB_DIR'] ?? tmpdir(), `agent-bridge-bench-${kind}-`));
  const integration =
    kind === 'slack'
      ? { SLACK_BOT_TOKEN: SLACK_TOKEN, SLACK_SIGNING_SECRET: SLACK_SECRET, SLACK_API_URL: world.slackUrl }
      : { LINEAR_API_KEY: LINEAR_KEY, LINEAR_WEBHOOK_SECRET: LINEAR_SECRET, LINEAR_API_URL: world.linearUrl };
  if (kind === 'linear') writeFileSync(join(cwd, 'agent-bridge.yml'), 'linear:\n  labels:\n    agent: {}\n');
  const config = loadConfig({
    cwd,
    env: {
      AGENT_API_BASE_URL: world.emulatorBaseUrl,
      AGENT_API_KEY: RUN_API_KEY,
      DATABASE_PATH: join(cwd, 'bench.db'),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      ...integration,
    },
  });
  const service = await startService({ config, logger: createLogger({ level: 'silent', secrets: [] }) });
  return {
    url: service.url,
    service,
    async progress() {
      const triggers = await service.store.triggers.countByState();
      const outbox = await service.store.outbox.counts();
      const stored = Object.values(triggers).reduce((sum, count) => sum + count, 0);
      return { stored, worked: triggers.done + triggers.failed + triggers.ignored, outboxSent: outbox.sent, outboxOpen: outbox.pending + outbox.sending };
    },
    async stop() {
      await service.stop();
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

/**
 * A Bolt app that only acknowledges app_mention events: Bolt's own HTTPReceiver (signature check,
 * body parsing, ack) with the settings our service gives Bolt (processBeforeResponse, no auth.test,
 * no conversation store), and nothing behind it.
 */
export async function startBareBolt(world: WorldUrls): Promise<Server> {
  const receiver = new HTTPReceiver({ signingSecret: SLACK_SECRET, endpoints: '/slack/events', processBeforeResponse: true, logLevel: LogLevel.ERROR });
  const app = new App({
    receiver,
    token: SLACK_TOKEN,
    botUserId: 'UBOT',
    botId: 'BBOT',
    tokenVerificationEnabled: false,
    clientOptions: { slackApiUrl: world.slackUrl, retryConfig: { retries: 0 } },
    ignoreSelf: true,
    convoStore: false,
    logLevel: LogLevel.ERROR,
  });
  app.event('app_mention', async () => {});
  const server = await receiver.start({ port: 0, host: '127.0.0.1' });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop: () => receiver.stop() };
}

/** node:http: read the body (same reader and limit as the service), check `linear-signature`, 200. */
export async function startBareLinear(): Promise<Server> {
  const server = createServer((req, res) => {
    readBody(req).then(
      (raw) => {
        const header = req.headers['linear-signature'];
        const ok = verifyLinearSignature(LINEAR_SECRET, Array.isArray(header) ? header[0] : header, raw);
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(ok ? '{"ok":true}' : '{"ok":false}');
      },
      () => res.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
