import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { formatDuration, parseDuration } from '../config-kit/duration.js';
import { loadConfig } from '../config/index.js';
import type { AppConfig } from '../config/types.js';
import type { AuditEntry } from '../core/ports/audit.js';
import type { StoredAuditEntry } from '../core/ports/store.js';
import { openStore } from '../store/open-store.js';
import { printJson, type CliContext } from './context.js';
import { UsageError } from './exit-codes.js';

/** At most this many entries are printed (newest first); the console pages through the rest. */
const AUDIT_LIMIT = 1000;

/** An entry as one line: when (UTC), the act, who, where, the run and the short facts. */
export function auditLine(entry: StoredAuditEntry): string {
  const at = new Date(entry.at)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
  const facts = Object.entries(entry.detail ?? {}).map(([name, value]) => `${name}=${value}`);
  return [at, entry.act.padEnd(21), entry.personId ?? '-', entry.surface, entry.runId ?? '-', ...facts].join('  ');
}

/** The entry as recorded: the row id is the store's, not part of the entry. */
function withoutId(entry: StoredAuditEntry): AuditEntry {
  return Object.fromEntries(Object.entries(entry).filter(([name]) => name !== 'id')) as unknown as AuditEntry;
}

function databaseExists(config: AppConfig): boolean {
  const database = config.database;
  return database.kind === 'postgres' || database.path === ':memory:' || existsSync(database.path);
}

/** `agent-bridge audit [--since 7d] [--json]`: the audit trail, newest first. */
export function registerAuditCommand(program: Command, context: CliContext): void {
  program
    .command('audit')
    .description(
      'the audit trail: every act that changed something (runs started, followed up, cancelled, approvals, limits, keys, console repairs), newest first',
    )
    .option('--since <duration>', 'how far back, e.g. 7d, 12h (default 7d)', '7d')
    .option('--config <file>', 'config file (default: AGENT_BRIDGE_CONFIG, else ./agent-bridge.yml when present)')
    .option('--json', 'print a JSON array of entries only')
    .action(async (options: { since: string; config?: string; json?: boolean }) => {
      const sinceMs = parseDuration(options.since.trim());
      if (sinceMs === undefined) throw new UsageError(`--since ${options.since} is not a duration: use e.g. 7d, 12h or 30m`);
      const config = loadConfig({ env: context.env, cwd: context.cwd, delivers: false, ...(options.config && { configPath: options.config }) });
      // Only reads: a database that does not exist yet is not created, it simply has no entries.
      let entries: StoredAuditEntry[] = [];
      if (databaseExists(config)) {
        const store = await openStore(config.database);
        try {
          entries = await store.audit.list({ since: context.now() - sinceMs, limit: AUDIT_LIMIT });
        } finally {
          await store.close();
        }
      }
      if (options.json)
        return printJson(
          context,
          entries.map((entry) => ({ ...withoutId(entry), at: new Date(entry.at).toISOString() })),
        );
      if (entries.length === 0) return context.out(`No audit entries in the last ${formatDuration(sinceMs)}.`);
      for (const entry of entries) context.out(auditLine(entry));
      if (entries.length === AUDIT_LIMIT) context.out(`(the newest ${AUDIT_LIMIT} only: use a shorter --since, or the console's /console/audit)`);
    });
}
