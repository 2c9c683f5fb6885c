import type { Command } from 'commander';
import { checkDatabaseUrl } from '../config/database-url.js';
import { loadConfig } from '../config/index.js';
import { printJson, type CliContext } from './context.js';
import { UsageError } from './exit-codes.js';

/** `agent-bridge db …`: moving an installation's database. */
export function registerDbCommand(program: Command, context: CliContext): void {
  const db = program.command('db').description('move the service’s database');
  db.command('copy')
    .description(
      'copy the SQLite database (DATABASE_PATH, or --from) into an EMPTY PostgreSQL database, with the service stopped; ' +
        'prints the row counts checked on both sides; refuses a non-empty target (exit 2)',
    )
    .requiredOption('--to <url>', 'the PostgreSQL database: postgres://user:password@host:5432/database')
    .option('--from <file>', 'the SQLite file (default: DATABASE_PATH, else ./data/agent-bridge.db)')
    .option('--config <file>', 'config file (default: AGENT_BRIDGE_CONFIG, else ./agent-bridge.yml when present)')
    .option('--json', 'print the counts as JSON only')
    .action(async (options: { to: string; from?: string; config?: string; json?: boolean }) => {
      const target = checkDatabaseUrl(options.to);
      if (!target.ok) throw new UsageError(`--to ${target.message}`);
      const from = options.from ?? sqlitePath(context, options.config);
      // Loaded here: the other commands should not load the PostgreSQL driver.
      const { copySqliteToPostgres, DatabaseCopyError } = await import('../store/copy-to-postgres.js');
      const { SchemaTooNewError } = await import('../store/migrate.js');
      let counts;
      try {
        counts = await copySqliteToPostgres({ from, to: options.to, now: context.now });
      } catch (error) {
        if (error instanceof DatabaseCopyError || error instanceof SchemaTooNewError) throw new UsageError(error.message);
        throw error;
      }
      if (options.json) return printJson(context, counts);
      context.out(`Copied ${from} → ${target.masked}`);
      context.out('');
      const width = Math.max(5, ...counts.map((count) => count.table.length));
      context.out(`${'table'.padEnd(width)}  ${'sqlite'.padStart(8)}  ${'postgres'.padStart(8)}`);
      for (const count of counts) context.out(`${count.table.padEnd(width)}  ${String(count.sqlite).padStart(8)}  ${String(count.postgres).padStart(8)}`);
      context.out('');
      context.out(`All ${counts.length} tables match. Start the service with DATABASE_URL set to this database and DATABASE_PATH unset.`);
      context.out(`To go back, unset DATABASE_URL: ${from} is unchanged (but knows nothing done on PostgreSQL since).`);
    });
}

/** The SQLite file the service uses, from the validated configuration. */
function sqlitePath(context: CliContext, configPath: string | undefined): string {
  const config = loadConfig({ env: context.env, cwd: context.cwd, delivers: false, ...(configPath && { configPath }) });
  if (config.database.kind !== 'sqlite') {
    throw new UsageError('DATABASE_URL is set, so there is no SQLite database to copy from: pass --from <file>, or unset DATABASE_URL');
  }
  return config.database.path;
}
