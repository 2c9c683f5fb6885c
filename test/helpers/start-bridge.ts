import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import type { Clock } from '../../src/core/ports/clock.js';
import type { Logger } from '../../src/core/ports/logger.js';
import { startService, type RunningService, type ServiceOptions } from '../../src/main.js';
import { CapturingLogger } from '../core/capturing-logger.js';
import { tempDir } from './spawn-cli.js';

export interface BridgeOptions {
  /** The run API (usually the emulator's base URL) and its key. */
  agentApi: { baseUrl: string; apiKey: string };
  /** Extra environment: Slack tokens, LOG_LEVEL, … */
  env?: Record<string, string>;
  /** Contents of agent-bridge.yml, if any. */
  yaml?: string;
  /** Working directory (reuse one to restart on the same database); default a fresh temp folder. */
  cwd?: string;
  logger?: Logger;
  /** The service's clock (default the system's): a test clock keeps every loop's poll from running until the test moves it. */
  clock?: Clock;
  overrides?: ServiceOptions['overrides'];
}

/**
 * The real service in this process, configured the way an operator would (environment + config file)
 * on a SQLite file in `cwd`, listening on a random loopback port.
 */
export async function startBridge(options: BridgeOptions): Promise<{ service: RunningService; cwd: string }> {
  const cwd = options.cwd ?? tempDir();
  if (options.yaml !== undefined) writeFileSync(join(cwd, 'agent-bridge.yml'), options.yaml);
  const config = loadConfig({
    cwd,
    env: {
      AGENT_API_BASE_URL: options.agentApi.baseUrl,
      AGENT_API_KEY: options.agentApi.apiKey,
      DATABASE_PATH: join(cwd, 'bridge.db'),
      PORT: '0',
      HOST: '127.0.0.1',
      ...options.env,
    },
  });
  const service = await startService({
    config,
    logger: options.logger ?? new CapturingLogger(),
    ...(options.clock && { clock: options.clock }),
    ...(options.overrides && { overrides: options.overrides }),
  });
  return { service, cwd };
}
