/**
 * One replica of the service in a child process of the bench (started by bench/replicas.ts): the
 * composition root configured from the environment it is given (SQLite at DATABASE_PATH or PostgreSQL
 * at DATABASE_URL, Slack over HTTP, the world child's fakes and emulator), exactly as `agent-bridge
 * serve` would run it. Talks to the bench over IPC:
 *
 * - sends `{ready: url}` once it listens (or `{failed: text}`);
 * - answers `{op: 'cpu'}` with the CPU (user + system, ms) it has used since it started;
 * - answers `{op: 'statements'}` with what it has sent PostgreSQL since it started (`SentStatements`);
 * - stops cleanly when the bench disconnects, then exits.
 *
 * With BENCH_CPU_PROF set, node's own `--cpu-prof` (given by the parent) writes its profile on exit.
 */
import { loadConfig } from '../src/config/index.js';
import type { Store } from '../src/core/ports/store.js';
import { createLogger } from '../src/log/create-logger.js';
import { startService, type RunningService } from '../src/main.js';

/** What a replica sent its PostgreSQL database: every statement, and the claims a wake-up or poll makes. */
export interface SentStatements {
  /** Every statement on any of its connections (the pool's and the listener's). */
  statements: number;
  /** `triggers.claimNext` and `outbox.claimNext` calls: one statement each. */
  triggerClaims: number;
  outboxClaims: number;
}

let service: RunningService | undefined;
const sent: SentStatements = { statements: 0, triggerClaims: 0, outboxClaims: 0 };

process.on('message', (message: { id: number; op: 'cpu' | 'statements' }) => {
  if (message.op === 'statements') {
    process.send?.({ id: message.id, statements: { ...sent } });
    return;
  }
  if (message.op !== 'cpu') return;
  const used = process.cpuUsage();
  process.send?.({ id: message.id, cpuMs: (used.user + used.system) / 1000 });
});

process.on('disconnect', () => {
  void (service?.stop() ?? Promise.resolve()).finally(() => process.exit(0));
});

/** Counts every statement node-postgres sends from this process (the store's `pg` is this one). */
async function countStatements(): Promise<void> {
  const { default: pg } = await import('pg');
  // Taken off the prototype to be called with each client as `this` below.
  const query = Object.getOwnPropertyDescriptor(pg.Client.prototype, 'query')?.value as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    sent.statements++;
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
}

/** Counts the store's claims (the workers call them through the store, so wrapping them here counts theirs). */
function countClaims(store: Store): void {
  const { triggers, outbox } = store;
  const claimTrigger = triggers.claimNext.bind(triggers);
  const claimRow = outbox.claimNext.bind(outbox);
  triggers.claimNext = (...args) => {
    sent.triggerClaims++;
    return claimTrigger(...args);
  };
  outbox.claimNext = (...args) => {
    sent.outboxClaims++;
    return claimRow(...args);
  };
}

try {
  if (process.env['DATABASE_URL']) await countStatements();
  const config = loadConfig({ env: process.env, cwd: process.cwd() });
  // Errors only: a flood must not measure the logger, but a failure must still show.
  const logger = createLogger({ level: 'error', secrets: [config.agentApi.apiKey, config.slack.botToken, config.slack.signingSecret], pretty: false });
  service = await startService({ config, logger });
  countClaims(service.store);
  process.send?.({ ready: service.url });
} catch (error) {
  process.send?.({ failed: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
}
