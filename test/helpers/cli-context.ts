import { join } from 'node:path';
import { beforeEach } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/program.js';
import { tempDir } from './spawn-cli.js';

export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI's command tree in this process with captured output: the same parsing, commands and
 * exit-code mapping as the executable, without the cost of a child process per case. `now` fixes the
 * clock the commands see (e.g. the next fire times of `schedules list`).
 */
export async function runCliInProcess(args: string[], env: Record<string, string | undefined> = {}, cwd = process.cwd(), now?: number): Promise<InProcessRun> {
  const out: string[] = [];
  const err: string[] = [];
  const context: CliContext = {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    env,
    cwd,
    now: () => now ?? Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 20))),
  };
  const code = await runCli(args, context, () => {
    throw new Error('long-running commands are tested as child processes');
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** A test's own folder for the CLI: its database path (not created) and the command tree run there. */
export interface CliFolder {
  cwd: string;
  /** `data/bridge.db` in the folder, as DATABASE_PATH says. */
  db: string;
  /** Runs the CLI in the folder (see {@link runCliInProcess}) with only DATABASE_PATH set. */
  cli(args: string[]): Promise<InProcessRun>;
}

/** Registers a beforeEach that gives each test a fresh {@link CliFolder}, its clock fixed at `now`. */
export function useCliFolder(now: number): CliFolder {
  const folder: CliFolder = {
    cwd: '',
    db: '',
    cli: (args) => runCliInProcess(args, { DATABASE_PATH: folder.db }, folder.cwd, now),
  };
  beforeEach(() => {
    folder.cwd = tempDir();
    folder.db = join(folder.cwd, 'data', 'bridge.db');
  });
  return folder;
}
