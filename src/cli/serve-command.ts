import type { Command } from 'commander';
import { integrationSummary, loadConfig, secretValues } from '../config/index.js';
import { SURFACE_MODULES } from '../surface-list.js';
import type { CliContext } from './context.js';

export function registerServeCommand(program: Command, context: CliContext, onShutdown: (stop: () => Promise<void>) => void): void {
  program
    .command('serve')
    .description('run the service: HTTP routes, run tracking and every configured integration (what `npm start` runs)')
    .option('--config <file>', 'routing and schedules file (default: AGENT_BRIDGE_CONFIG, else ./agent-bridge.yml when present)')
    .action(async (options: { config?: string }) => {
      const config = loadConfig({ env: context.env, cwd: context.cwd, ...(options.config && { configPath: options.config }) });
      // Loaded here, not at the top: the other commands should not pay for the service's modules.
      const [{ createLogger }, { startService }] = await Promise.all([import('../log/create-logger.js'), import('../main.js')]);
      const logger = createLogger({
        level: config.logLevel,
        secrets: secretValues(config),
        credentialShapes: SURFACE_MODULES.flatMap((module) => module.credentialShapes ?? []),
      });
      // Before anything starts: stored personal keys must open with AGENT_BRIDGE_SECRET (else exit 2 naming it).
      await (await import('../compose/people.js')).checkPeopleSecret(config);
      const service = await startService({ config, logger });
      for (const line of integrationSummary(config)) logger.info(line);
      logger.info({ healthz: `${service.url}/healthz`, readyz: `${service.url}/readyz`, metrics: `${service.url}/metrics` }, 'ready to serve');
      onShutdown(async () => {
        logger.info('shutting down: no new requests, finishing work in flight');
        await service.stop();
        logger.info('stopped');
        logger.flush();
      });
    });
}
