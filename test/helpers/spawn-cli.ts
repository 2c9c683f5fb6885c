import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeArgsFor, ROOT } from './child-programs.js';

export { ROOT };
const CLI = join(ROOT, 'src/cli.ts');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SpawnOptions {
  env?: Record<string, string | undefined>;
  /** Working directory; default a fresh empty temp folder (no stray .env or agent-bridge.yml). */
  cwd?: string;
}

/** A clean environment: only what Node needs, plus `extra`. The developer's own variables never leak in. */
function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'], NODE_ENV: 'test' };
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) env[key] = value;
  return env;
}

/** Folders `tempDir` made in this process, removed when it exits (every npm test made hundreds). */
const made: string[] = [];

/** A fresh empty folder under the system's temp folder, removed when this process exits. */
export function tempDir(prefix = 'agent-bridge-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (made.length === 0) process.once('exit', removeMade);
  made.push(dir);
  return dir;
}

/** Removes the folders `tempDir` made so far (vitest calls it after each test file: its workers do not always exit). */
export function removeMade(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Starts a TypeScript file of this repository as a real child process (its bundle, or its source through the tsx loader). */
export function spawnTs(file: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  return spawn(process.execPath, [...nodeArgsFor(file), ...args], {
    cwd: options.cwd ?? tempDir(),
    env: childEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Starts `agent-bridge <args>` from the TypeScript sources as a real child process. */
export function spawnCli(args: string[], options: SpawnOptions = {}): ChildProcess {
  return spawnTs(CLI, args, options);
}

/** Runs `agent-bridge <args>` to completion and returns its exit code and output. */
export function runCli(args: string[], options: SpawnOptions = {}): Promise<CliRun> {
  return runTs(CLI, args, options);
}

/** Runs a TypeScript file of this repository to completion and returns its exit code and output. */
export function runTs(file: string, args: string[], options: SpawnOptions = {}): Promise<CliRun> {
  const child = spawnTs(file, args, options);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolvePromise, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** A long-running child with all of its output so far. */
export interface RunningCli {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  /** Resolves with the first match of `pattern` in everything printed so far or later. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resolves when the child has exited, however it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a long-running command (serve, emulator) and keeps its output for assertions. */
export function startCli(args: string[], options: SpawnOptions = {}): RunningCli {
  return watch(spawnCli(args, options));
}

/** Starts a long-running TypeScript file and keeps its output for assertions. */
export function startTs(file: string, options: SpawnOptions = {}): RunningCli {
  return watch(spawnTs(file, [], options));
}

function watch(child: ChildProcess): RunningCli {
  const output = { stdout: '', stderr: '' };
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolvePromise) =>
    child.once('exit', (code, signal) => resolvePromise({ code, signal })),
  );
  const waiters = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString();
    for (const check of waiters) check();
  });
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const waitFor = (pattern: RegExp, timeoutMs = 15_000) =>
    new Promise<RegExpMatchArray>((resolvePromise, reject) => {
      const done = () => {
        waiters.delete(check);
        clearTimeout(timer);
        child.off('exit', onExit);
      };
      const check = () => {
        const match = output.stdout.match(pattern);
        if (match) {
          done();
          resolvePromise(match);
        }
      };
      const onExit = (code: number | null) => {
        done();
        reject(new Error(`exited ${code} before output matching ${pattern}; stdout: ${output.stdout}; stderr: ${output.stderr}`));
      };
      const timer = setTimeout(() => {
        done();
        // The test fails here and never stops it: a child left running would outlive the whole run.
        child.kill('SIGKILL');
        reject(new Error(`no output matching ${pattern} within ${timeoutMs} ms; stdout: ${output.stdout}; stderr: ${output.stderr}`));
      }, timeoutMs);
      waiters.add(check);
      child.once('exit', onExit);
      check();
    });
  return { child, output, waitFor, stop: (signal) => stopChild(child, signal), exited };
}

/** Sends `signal` and resolves with the exit code. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolvePromise) => {
    child.once('exit', (code) => resolvePromise(code));
    child.kill(signal);
  });
}
