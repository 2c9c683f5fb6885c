/**
 * Starts bench/outside.ts as a child process (through the tsx loader) and talks to it: one request,
 * one answer. The bench uses two of them: one hosts the fakes and the emulator ("world"), the other
 * generates the load, so the measured server has its process to itself.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LoadRequest, LoadResult, WorldRequest, WorldSeen, WorldStats, WorldUrls } from './outside.js';
import { sleep } from './report.js';

const ROOT = resolve(import.meta.dirname, '..');
const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

export interface Outside {
  world(request: Omit<WorldRequest, 'op'>): Promise<WorldUrls>;
  load(request: Omit<LoadRequest, 'op'>): Promise<LoadResult>;
  stats(): Promise<WorldStats>;
  /** World only: what people have seen so far (Slack calls by method, runs created). */
  seen(): Promise<WorldSeen>;
  close(): Promise<void>;
}

export function startOutside(name: string): Outside {
  const child: ChildProcess = fork(join(ROOT, 'bench/outside.ts'), [name], {
    execArgv: ['--import', TSX_LOADER],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let next = 1;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.on('message', (message: { id: number; ok: boolean; value?: unknown; error?: string }) => {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.ok) waiter?.resolve(message.value);
    else waiter?.reject(new Error(`${name}: ${message.error ?? 'failed'}`));
  });
  child.once('exit', (code, signal) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`${name} child exited (${code ?? signal}) before answering`));
    pending.clear();
  });
  const call = <T>(request: object): Promise<T> =>
    new Promise<T>((resolvePromise, reject) => {
      const id = next++;
      pending.set(id, { resolve: resolvePromise as (value: unknown) => void, reject });
      child.send({ id, ...request });
    });
  return {
    world: (request) => call<WorldUrls>({ op: 'world', ...request }),
    load: (request) => call<LoadResult>({ op: 'load', ...request }),
    stats: () => call<WorldStats>({ op: 'stats' }),
    seen: () => call<WorldSeen>({ op: 'seen' }),
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) child.disconnect();
      const gone = await Promise.race([exited.then(() => true), sleep(3_000).then(() => false)]);
      if (!gone) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
