import type { Command } from 'commander';
import { integrationSummary, loadConfig, secretValues } from '../config/index.js';
import { installTracing } from '../core/ports/tracing.js';
import { SURFACE_MODULES } from '../surface-list.js';
import type { CliContext } from './context.js';

export function registerServeCommand(program: Command, context: CliContext, onShutdown: (stop: () => Promise<void>) => void): void {
  program
    .command('serve')
    .description('run the service: HTTP routes, run tracking and every configured integration (what `npm start` runs)')
    .option('--config <file>', 'routing and schedules file (default: AGENT_BRIDGE_CONFIG, else ./agent-bridge.yml when present)')
    .action(async (options: { config?: string }) => {
      const config = loadConfig({ env: context.env, cwd: context.cwd, ...(options.config && { configPath: options.config }) });
      // Before the service's modules load, so that the instrumentations see them; not loaded at all when off.
      const telemetry = config.tracing ? (await import('../telemetry/start-tracing.js')).startTracing(config.tracing) : undefined;
      if (telemetry) installTracing(telemetry.tracing);
      // Loaded here, not at the top: the other commands should not pay for the service's modules.
      const [{ createLogger }, { startService }] = await Promise.all([import('../log/create-logger.js'), import('../main.js')]);
      const logger = createLogger({
        level: config.logLevel,
        secrets: secretValues(config),
        credentialShapes: SURFACE_MODULES.flatMap((module) => module.credentialShapes ?? []),
        ...(telemetry && { mixin: telemetry.logFields }),
      });
      // Before anything starts: stored personal keys must open with AGENT_BRIDGE_SECRET (else exit 2 naming it).
      await (await import('../compose/people.js')).checkPeopleSecret(config);
      const service = await startService({ config, logger });
      for (const line of integrationSummary(config)) logger.info(line);
      logger.info({ healthz: `${service.url}/healthz`, readyz: `${service.url}/readyz`, metrics: `${service.url}/metrics` }, 'ready to serve');
      onShutdown(async () => {
        logger.info('shutting down: no new requests, finishing work in flight');
        await service.stop();
        // The last spans (the shutdown's own work among them) are exported before the process ends.
        await telemetry?.shutdown();
        logger.info('stopped');
        logger.flush();
      });
    });
}
