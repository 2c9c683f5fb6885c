/** The run API the service talks to: the configured one, or the built-in emulator. */
import type { AppConfig } from '../config/types.js';
import type { Logger } from '../core/ports/logger.js';
import { startBuiltInEmulator, type BuiltInEmulator } from './built-in-emulator.js';

/** The configured run API, or the built-in emulator (`built-in-emulator.ts`) when none is configured. */
export async function agentApiEndpoint(config: AppConfig, logger: Logger): Promise<{ baseUrl: string; apiKey: string; emulator?: BuiltInEmulator }> {
  if (!config.agentApi.emulated && config.agentApi.baseUrl && config.agentApi.apiKey) {
    return { baseUrl: config.agentApi.baseUrl, apiKey: config.agentApi.apiKey };
  }
  return startBuiltInEmulator(config, logger);
}
