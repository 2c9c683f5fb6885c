/**
 * `agent-bridge usage [--by person|route|source] [--since 30d] [--json]`: the runs created
 * in a recent window and the credits they used, by who asked, route or source, with a line per UTC
 * day — read from the service's database, as the tracker last recorded them.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { loadConfig } from '../config/index.js';
import { durationSyntaxHelp, parseDuration } from '../config-kit/duration.js';
import type { AppConfig } from '../config/types.js';
import { USAGE_GROUPINGS, type UsageGrouping } from '../core/ports/store.js';
import { usageReport, type UsageReport } from '../core/usage/usage-report.js';
import { describeDatabase, openStore } from '../store/open-store.js';
import { printJson, type CliContext } from './context.js';
import { UsageError } from './exit-codes.js';
import { renderUsage, usageJson } from './usage-format.js';

interface UsageOptions {
  by: string;
  since: string;
  json?: boolean;
  config?: string;
}

/** The options checked: a grouping this command knows and a duration in the config's syntax. */
function parseOptions(options: UsageOptions): { by: UsageGrouping; windowMs: number } {
  const by = USAGE_GROUPINGS.find((grouping) => grouping === options.by);
  if (!by) throw new UsageError(`--by must be one of ${USAGE_GROUPINGS.join(', ')} (got "${options.by}")`);
  const windowMs = parseDuration(options.since);
  if (windowMs === undefined) throw new UsageError(`--since: ${durationSyntaxHelp(options.since)}`);
  if (windowMs === 0) throw new UsageError('--since must be longer than 0, e.g. 30d');
  return { by, windowMs };
}

/** A database that does not exist yet is not created: it simply has no usage. */
function databaseExists(config: AppConfig): boolean {
  const database = config.database;
  return database.kind === 'postgres' || database.path === ':memory:' || existsSync(database.path);
}

async function showUsage(context: CliContext, options: UsageOptions): Promise<void> {
  const { by, windowMs } = parseOptions(options);
  const config = loadConfig({ env: context.env, cwd: context.cwd, delivers: false, ...(options.config && { configPath: options.config }) });
  const until = context.now();
  const range = { by, since: until - windowMs, until };
  let report: UsageReport;
  if (databaseExists(config)) {
    const store = await openStore(config.database);
    try {
      report = usageReport(await store.usage.sums({ by, since: range.since }), range);
    } finally {
      await store.close();
    }
  } else {
    report = usageReport([], range);
    if (!options.json) context.out(`No database at ${describeDatabase(config.database)} yet: no runs recorded.\n`);
  }
  if (options.json) printJson(context, usageJson(report));
  else context.out(renderUsage(report, options.since));
}

export function registerUsageCommand(program: Command, context: CliContext): void {
  program
    .command('usage')
    .description('runs and credits (inference + compute) by person, route or source, and per UTC day')
    .option('--by <grouping>', `group by ${USAGE_GROUPINGS.join(' | ')}`, 'person')
    .option('--since <duration>', 'how far back, e.g. 7d, 30d, 12h', '30d')
    .option('--config <file>', 'config file (default: AGENT_BRIDGE_CONFIG, else ./agent-bridge.yml when present)')
    .option('--json', 'print a JSON object only')
    .action((options: UsageOptions) => showUsage(context, options));
}
