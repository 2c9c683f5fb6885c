import type { Command } from 'commander';
import { BRIDGE_SECRET_MIN_LENGTH } from '../config-kit/value-sets.js';
import { loadConfig } from '../config/index.js';
import { StartupError } from '../core/startup-error.js';
import { describeDatabase, openStore } from '../store/open-store.js';
import type { CliContext } from './context.js';
import { UsageError } from './exit-codes.js';

/** The variable the new secret is read from: a secret never goes on a command line (ps shows it). */
export const NEW_SECRET_VARIABLE = 'AGENT_BRIDGE_NEW_SECRET';

/** `agent-bridge secrets …`: the secret that seals people's API keys. */
export function registerSecretsCommand(program: Command, context: CliContext): void {
  const secrets = program.command('secrets').description('the secret that seals people’s stored API keys (AGENT_BRIDGE_SECRET)');
  secrets
    .command('rotate')
    .description(
      `re-seal every stored personal API key from AGENT_BRIDGE_SECRET to ${NEW_SECRET_VARIABLE}, in one transaction, with the service stopped; ` +
        `then start the service with AGENT_BRIDGE_SECRET set to the new secret`,
    )
    .option('--config <file>', 'config file (default: AGENT_BRIDGE_CONFIG, else ./agent-bridge.yml when present)')
    .action(async (options: { config?: string }) => {
      const config = loadConfig({ env: context.env, cwd: context.cwd, delivers: false, ...(options.config && { configPath: options.config }) });
      const current = config.people.secret;
      const next = context.env[NEW_SECRET_VARIABLE]?.trim();
      if (current === undefined) throw new UsageError('AGENT_BRIDGE_SECRET is not set: set it to the secret the keys are sealed with now');
      if (!next) throw new UsageError(`${NEW_SECRET_VARIABLE} is not set: set it to the new secret (make one with: openssl rand -hex 32)`);
      if (next.length < BRIDGE_SECRET_MIN_LENGTH) {
        throw new UsageError(`${NEW_SECRET_VARIABLE} is too short (${next.length} characters): it must have at least ${BRIDGE_SECRET_MIN_LENGTH}`);
      }
      if (next === current) throw new UsageError(`${NEW_SECRET_VARIABLE} is the same as AGENT_BRIDGE_SECRET: set a new secret`);
      const { rotateKeys } = await import('../people/person-keys.js');
      const store = await openStore(config.database);
      try {
        const now = context.now();
        const alive = (await store.processes.list(1000)).filter((process) => process.stoppedAt === null && process.aliveUntil > now);
        if (alive.length > 0) {
          throw new UsageError(
            `The service is running (${alive.map((process) => `pid ${process.pid} on ${process.host}`).join(', ')}): stop it first, so no key is connected under the old secret meanwhile`,
          );
        }
        const count = await rotateKeys(store.personKeys, current, next);
        context.out(`Re-sealed ${count} personal API key(s) in ${describeDatabase(config.database)}.`);
        context.out(`Now set AGENT_BRIDGE_SECRET to the new secret (and unset ${NEW_SECRET_VARIABLE}) before starting the service.`);
      } catch (error) {
        if (error instanceof StartupError) throw new UsageError(error.message);
        throw error;
      } finally {
        await store.close();
      }
    });
}
