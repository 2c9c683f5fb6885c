/**
 * The real service in a child process, for crash tests: the composition root with a file-backed
 * notifier (platform `test`) and two switches that kill the process with SIGKILL at the worst
 * moments — right after the run API created a run (before its id is stored), and right after the
 * Nth notifier call succeeded (before the outbox recorded it).
 *
 * Environment: the usual agent-bridge variables, plus
 *   NOTIFY_FILE      JSON lines of delivered messages (one per key: the notifier dedupes on it)
 *   ATTEMPTS_FILE    JSON lines of every notifier call, duplicates included
 *   CRASH_AFTER_CREATE=1, CRASH_AFTER_CANCEL=1 (right after the run API took a cancel), CRASH_ON_NOTIFY=N
 *   HANG_DESTINATION=prefix   deliveries to destinations starting with it never end (the row stays claimed)
 *   LEASE_MS=N (default 2000), or `default` for the service's own lease lengths
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { loadConfig } from '../../src/config/index.js';
import type { AgentRuns } from '../../src/core/ports/agent-runs.js';
import type { Delivery, Notifier } from '../../src/core/ports/notifier.js';
import { createLogger } from '../../src/log/create-logger.js';
import { startService } from '../../src/main.js';

const env = process.env;
const notifyFile = env['NOTIFY_FILE']!;
const attemptsFile = env['ATTEMPTS_FILE']!;
const crashOnNotify = Number(env['CRASH_ON_NOTIFY'] ?? 0);
const hangDestination = env['HANG_DESTINATION'];
let calls = 0;

/** Delivers by appending a line; a key already in the file is not written again (an idempotency key). */
const fileNotifier: Notifier = {
  platform: 'test',
  async deliver(delivery: Delivery) {
    if (hangDestination && delivery.destination.startsWith(hangDestination)) {
      process.stdout.write(`hanging on ${delivery.key}\n`);
      return new Promise<never>(() => {});
    }
    calls++;
    const message = delivery.message as { kind: string; run?: { state: string; runId: string } };
    const line = {
      key: delivery.key,
      destination: delivery.destination,
      kind: message.kind,
      state: message.run?.state,
      runId: message.run?.runId,
      pid: process.pid,
    };
    appendFileSync(attemptsFile, `${JSON.stringify(line)}\n`);
    const already =
      existsSync(notifyFile) &&
      readFileSync(notifyFile, 'utf8')
        .split('\n')
        .some((text) => text && (JSON.parse(text) as { key: string }).key === delivery.key);
    if (!already) appendFileSync(notifyFile, `${JSON.stringify(line)}\n`);
    if (calls === crashOnNotify) process.kill(process.pid, 'SIGKILL');
    return { delivered: true };
  },
};

const wrapAgentRuns = (runs: AgentRuns): AgentRuns => {
  if (env['CRASH_AFTER_CANCEL'] === '1') {
    return Object.assign(Object.create(runs) as AgentRuns, {
      cancelRun: async (runId: string) => {
        await runs.cancelRun(runId);
        process.kill(process.pid, 'SIGKILL');
        return new Promise<never>(() => {});
      },
    });
  }
  if (env['CRASH_AFTER_CREATE'] !== '1') return runs;
  return Object.assign(Object.create(runs) as AgentRuns, {
    createRun: async (request: Parameters<AgentRuns['createRun']>[0]) => {
      await runs.createRun(request);
      process.kill(process.pid, 'SIGKILL');
      return new Promise<never>(() => {});
    },
  });
};

const config = loadConfig({ env, cwd: process.cwd() });
const logger = createLogger({ level: config.logLevel, secrets: [config.agentApi.apiKey], pretty: false });
// Short leases so a restarted child takes over a dead one's work within the test's time.
const leaseMs = Number(env['LEASE_MS'] ?? 2000);
const leases = env['LEASE_MS'] === 'default' ? {} : { leases: { intakeMs: leaseMs, outboxMs: leaseMs, trackerMs: leaseMs } };
const service = await startService({ config, logger, overrides: { notifiers: [fileNotifier], wrapAgentRuns, ...leases } });
process.stdout.write(`child ready ${service.url}\n`);
const stop = async () => {
  await service.stop();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
