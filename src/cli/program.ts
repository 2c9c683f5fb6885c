import { Command, CommanderError } from 'commander';
import type { CliContext } from './context.js';
import { registerAuditCommand } from './audit-command.js';
import { registerConfigCommand } from './config-command.js';
import { registerDbCommand } from './db-command.js';
import { registerEmulatorCommand } from './emulator-command.js';
import { ExitCode, exitFor } from './exit-codes.js';
import { registerRunCommand } from './run-command.js';
import { registerRunsCommand } from './runs-command.js';
import { registerSchedulesCommand } from './schedules-command.js';
import { registerSecretsCommand } from './secrets-command.js';
import { registerServeCommand } from './serve-command.js';
import { registerUsageCommand } from './usage-command.js';
import { packageVersion } from '../host/version.js';
import { SURFACE_MODULES } from '../surface-list.js';

export interface CliResult {
  /** Exit code once the command is done; long-running commands (serve, emulator) resolve when stopped. */
  code: number;
}

/** Builds the `agent-bridge` command tree. Long-running commands register how to stop them. */
export function buildProgram(context: CliContext, onShutdown: (stop: () => Promise<void>) => void): Command {
  const program = new Command('agent-bridge')
    .description(`${SURFACE_MODULES.map((module) => module.title).join(', ')} and cron → Cloud Agent Run API bridge`)
    .version(packageVersion(), '-V, --version', 'print the installed version')
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ writeOut: (text) => context.out(text.trimEnd()), writeErr: (text) => context.err(text.trimEnd()) })
    .exitOverride();
  // Subcommands inherit exitOverride and the output settings from the program.
  registerServeCommand(program, context, onShutdown);
  registerRunCommand(program, context);
  registerRunsCommand(program, context);
  registerSchedulesCommand(program, context);
  registerEmulatorCommand(program, context, onShutdown);
  registerConfigCommand(program, context);
  registerDbCommand(program, context);
  registerSecretsCommand(program, context);
  registerUsageCommand(program, context);
  registerAuditCommand(program, context);
  return program;
}

/** Parses `argv` (without node and script) and runs the command; never calls process.exit itself. */
export async function runCli(argv: string[], context: CliContext, onShutdown: (stop: () => Promise<void>) => void): Promise<number> {
  const program = buildProgram(context, onShutdown);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successes; every other parse failure is a usage error.
      const helpCodes = ['commander.helpDisplayed', 'commander.help', 'commander.version'];
      return helpCodes.includes(error.code) ? ExitCode.ok : ExitCode.usage;
    }
    const { code, message } = exitFor(error);
    if (message) context.err(`agent-bridge: ${message}`);
    return code;
  }
}
