/**
 * The real service (composition root, Slack over HTTP) in a child process, for the stress suites:
 * configured from the environment and `agent-bridge.yml` in its working directory like `agent-bridge
 * serve` (SQLite at DATABASE_PATH, or PostgreSQL at DATABASE_URL), with leases shortened (LEASE_MS,
 * default 3000) so that a restarted or surviving process takes over a killed one's claimed work within
 * seconds; LEASE_MS=default keeps the service's own lease lengths (then only process liveness frees a
 * killed process's work early). Prints `bridge ready <url>` once it listens.
 */
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/log/create-logger.js';
import { startService } from '../../src/main.js';

const env = process.env;
const config = loadConfig({ env, cwd: process.cwd() });
const logger = createLogger({ level: config.logLevel, secrets: [config.agentApi.apiKey, config.slack.botToken, config.slack.signingSecret], pretty: false });
const leaseMs = Number(env['LEASE_MS'] ?? 3000);
const leases = env['LEASE_MS'] === 'default' ? {} : { leases: { intakeMs: leaseMs, outboxMs: leaseMs, trackerMs: leaseMs, scheduleFireMs: leaseMs } };
const service = await startService({ config, logger, overrides: leases });
process.stdout.write(`bridge ready ${service.url}\n`);
process.once('SIGTERM', () => {
  void service.stop().then(() => process.exit(0));
});
