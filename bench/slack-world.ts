/**
 * The in-process setup of the Slack latency benches: the fake Slack Web API, the run-API emulator
 * (manual mode) and the full service with Slack over HTTP on a fresh SQLite file.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/index.js';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';
import { createLogger } from '../src/log/create-logger.js';
import { startService, type RunningService } from '../src/main.js';
import { startFakeSlackApi, type FakeSlackApi } from '../test/fakes/slack-api.js';
import { SLACK_IDS } from '../test/fixtures/slack/ids.js';

export interface SlackWorld {
  fake: FakeSlackApi;
  emulator: RunningEmulator;
  service: RunningService;
  /** The service's working folder (its database is `bench.db` there). */
  cwd: string;
  /** `POST` URL of the service's Slack route. */
  events: string;
}

export async function startSlackWorld(options: { name: string; botToken: string; secret: string; apiKey: string; yaml?: string }): Promise<SlackWorld> {
  const fake = await startFakeSlackApi({ token: options.botToken });
  fake.setChannel(SLACK_IDS.channel, { name: 'dev' });
  fake.setUser(SLACK_IDS.user, { display_name: 'ada' });
  const emulator = await startEmulator({ apiKey: options.apiKey, port: 0, manual: true });
  const cwd = mkdtempSync(join(tmpdir(), `agent-bridge-bench-${options.name}-`));
  if (options.yaml !== undefined) writeFileSync(join(cwd, 'agent-bridge.yml'), options.yaml);
  const config = loadConfig({
    cwd,
    env: {
      AGENT_API_BASE_URL: emulator.baseUrl,
      AGENT_API_KEY: options.apiKey,
      SLACK_BOT_TOKEN: options.botToken,
      SLACK_SIGNING_SECRET: options.secret,
      SLACK_API_URL: fake.url,
      DATABASE_PATH: join(cwd, 'bench.db'),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
    },
  });
  const service = await startService({ config, logger: createLogger({ level: 'silent', secrets: [] }) });
  return { fake, emulator, service, cwd, events: `${service.url}/slack/events` };
}
