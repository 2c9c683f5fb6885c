#!/usr/bin/env node
import { readDotEnv, mergeEnvironment } from './config/env.js';
import { lineWriter, type CliContext } from './cli/context.js';
import { runCli } from './cli/program.js';

/*
 * The `agent-bridge` executable. Commands that finish (run, runs, config check) exit with their
 * code; long-running ones (serve, emulator) register a stop function and run until SIGINT/SIGTERM.
 */
const cwd = process.cwd();
const stops: Array<() => Promise<void>> = [];

/*
 * Whoever reads our output has stopped (`| head -1`): a command that finishes has nothing left to say
 * to anyone and ends quietly with 0, as the pipeline's user expects; a long-running one keeps running.
 * A closed stderr changes nothing: the command's own exit code still tells how it went.
 */
const stdoutReaderGone = () => {
  if (stops.length === 0) process.exit(0);
};

const context: CliContext = {
  out: lineWriter(process.stdout, stdoutReaderGone),
  err: lineWriter(process.stderr),
  env: mergeEnvironment(process.env, readDotEnv(cwd).values),
  cwd,
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

let stopping = false;

async function shutdown(signal: NodeJS.Signals): Promise<void> {
  if (stopping) {
    context.err(`agent-bridge: ${signal} again, exiting now`);
    process.exit(1);
  }
  stopping = true;
  let code = 0;
  for (const stop of stops.reverse()) {
    try {
      await stop();
    } catch (error) {
      context.err(`agent-bridge: error while stopping: ${error instanceof Error ? error.message : String(error)}`);
      code = 1;
    }
  }
  process.exit(code);
}

const code = await runCli(process.argv.slice(2), context, (stop) => {
  if (stops.length === 0) {
    process.once('SIGINT', (signal) => void shutdown(signal));
    process.once('SIGTERM', (signal) => void shutdown(signal));
  }
  stops.push(stop);
});
// A long-running command keeps the event loop alive; everything else ends here with its code.
if (stops.length === 0) process.exitCode = code;
else if (code !== 0) process.exit(code);
