import type { Command } from 'commander';
import { describeConfig, formatProblem, integrationSummary, loadConfig } from '../config/index.js';
import { ConfigError } from '../config/problems.js';
import type { AppConfig } from '../config/types.js';
import { SURFACE_MODULES } from '../surface-list.js';
import { printJson, type CliContext } from './context.js';

export function registerConfigCommand(program: Command, context: CliContext): void {
  const config = program.command('config').description('inspect the configuration');
  config
    .command('check')
    .description(
      'validate the environment and config file; print the effective configuration (secrets masked); ' +
        'ask the run API whether it answers (and why not) and each surface that is on what only its platform can say (such as whether the workflow states the config names exist); exit 2 on any problem',
    )
    .option('--config <file>', 'file to check (default: AGENT_BRIDGE_CONFIG, else ./agent-bridge.yml when present)')
    .option('--offline', 'ask neither the run API nor any surface’s platform')
    .option('--json', 'print the effective configuration as JSON only')
    .action(async (options: { config?: string; json?: boolean; offline?: boolean }) => {
      // A ConfigError propagates to the CLI's one error mapping: every problem listed, exit 2.
      const loaded = loadConfig({ env: context.env, cwd: context.cwd, ...(options.config && { configPath: options.config }) });
      const live = options.offline ? [] : [...(await checkRunApi(loaded)), ...(await checkAgainstSurfaces(loaded, context))];
      const warnings = loaded.warnings ?? [];
      // On stderr, so that with --json stdout stays JSON only.
      const warn = () => warnings.forEach((warning) => context.err(`warning: ${formatProblem(warning)}`));
      if (options.json) {
        warn();
        return printJson(context, describeConfig(loaded));
      }
      const counted = warnings.length === 0 ? '.' : `, with ${warnings.length === 1 ? '1 warning' : `${warnings.length} warnings`}:`;
      context.out(`Configuration is valid${loaded.configFile ? ` (${loaded.configFile})` : ' (no config file: defaults)'}${counted}`);
      warn();
      context.out('');
      for (const line of [...integrationSummary(loaded), ...live]) context.out(line);
      context.out('');
      context.out('Effective configuration (secrets masked):');
      context.out(JSON.stringify(describeConfig(loaded), null, 2));
    });
}

/**
 * The run API's readiness, with the reason when it fails — the detail `/readyz` keeps from anonymous
 * callers. Said, not failed (exit 0): the API may be down for a moment while the configuration is fine.
 */
async function checkRunApi(config: AppConfig): Promise<string[]> {
  const { baseUrl, apiKey, emulated } = config.agentApi;
  if (emulated || !baseUrl || !apiKey) return [];
  const { runApiProbe } = await import('../agent-api/readiness-probe.js');
  const probe = runApiProbe({ baseUrl, apiKey });
  try {
    await probe.check();
    return ['Run API readiness: ok (it answered with this key)'];
  } catch (error) {
    return [`Run API readiness: failing — ${error instanceof Error ? error.message : String(error)}`];
  } finally {
    await probe.close();
  }
}

/**
 * Lines for the summary from every surface that checks the config against its platform (whether the
 * workflow states a tracker names exist): what one finds surely wrong is a problem (exit 2), what may
 * be wrong is warned of, an unreachable platform is only said.
 */
async function checkAgainstSurfaces(config: AppConfig, context: CliContext): Promise<string[]> {
  const lines: string[] = [];
  const problems: string[] = [];
  for (const module of SURFACE_MODULES) {
    if (!module.liveChecks || !module.isOn(config)) continue;
    const check = await module.liveChecks(config);
    lines.push(...check.lines);
    problems.push(...(check.problems ?? []));
    for (const warning of check.warnings ?? []) context.err(`warning: ${warning}`);
  }
  const where = config.configFile ?? 'agent-bridge.yml';
  if (problems.length > 0) throw new ConfigError(problems.map((message) => ({ where, message })));
  return lines;
}
