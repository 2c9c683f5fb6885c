/**
 * One replica of the service in a child process of the bench (started by bench/replicas.ts): the
 * composition root configured from the environment it is given (SQLite at DATABASE_PATH or PostgreSQL
 * at DATABASE_URL, Slack over HTTP, the world child's fakes and emulator), exactly as `agent-bridge
 * serve` would run it. Talks to the bench over IPC:
 *
 * - sends `{ready: url}` once it listens (or `{failed: text}`);
 * - answers `{op: 'cpu'}` with the CPU (user + system, ms) it has used since it started;
 * - stops cleanly when the bench disconnects, then exits.
 *
 * With BENCH_CPU_PROF set, node's own `--cpu-prof` (given by the parent) writes its profile on exit.
 */
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/log/create-logger.js';
import { startService, type RunningService } from '../src/main.js';

let service: RunningService | undefined;

process.on('message', (message: { id: number; op: 'cpu' }) => {
  if (message.op !== 'cpu') return;
  const used = process.cpuUsage();
  process.send?.({ id: message.id, cpuMs: (used.user + used.system) / 1000 });
});

process.on('disconnect', () => {
  void (service?.stop() ?? Promise.resolve()).finally(() => process.exit(0));
});

try {
  const config = loadConfig({ env: process.env, cwd: process.cwd() });
  // Errors only: a flood must not measure the logger, but a failure must still show.
  const logger = createLogger({ level: 'error', secrets: [config.agentApi.apiKey, config.slack.botToken, config.slack.signingSecret], pretty: false });
  service = await startService({ config, logger });
  process.send?.({ ready: service.url });
} catch (error) {
  process.send?.({ failed: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
}
