import type { Command } from 'commander';
import { describeConfig, integrationSummary, loadConfig } from '../config/index.js';
import { printJson, type CliContext } from './context.js';

export function registerConfigCommand(program: Command, context: CliContext): void {
  const config = program.command('config').description('inspect the configuration');
  config
    .command('check')
    .description('validate the environment and config file; print the effective configuration (secrets masked); exit 2 on any problem')
    .option('--config <file>', 'file to check (default: AGENT_BRIDGE_CONFIG, else ./agent-bridge.yml when present)')
    .option('--json', 'print the effective configuration as JSON only')
    .action((options: { config?: string; json?: boolean }) => {
      // A ConfigError propagates to the CLI's one error mapping: every problem listed, exit 2.
      const loaded = loadConfig({ env: context.env, cwd: context.cwd, ...(options.config && { configPath: options.config }) });
      if (options.json) return printJson(context, describeConfig(loaded));
      context.out(`Configuration is valid${loaded.configFile ? ` (${loaded.configFile})` : ' (no config file: defaults)'}.`);
      context.out('');
      for (const line of integrationSummary(loaded)) context.out(line);
      context.out('');
      context.out('Effective configuration (secrets masked):');
      context.out(JSON.stringify(describeConfig(loaded), null, 2));
    });
}
