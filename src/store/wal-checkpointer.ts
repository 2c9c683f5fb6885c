import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Clock } from '../core/ports/clock.js';

/** How often the worker checkpoints the WAL when the service does not say otherwise. */
export const CHECKPOINT_EVERY_MS = 1_000;

export interface WalCheckpointerOptions {
  /** The database file (WAL mode). */
  path: string;
  clock: Clock;
  everyMs?: number;
  busyTimeoutMs?: number;
  /** Told when the worker cannot checkpoint (the main connection then checkpoints again itself). */
  onProblem?: (error: Error) => void;
}

/** A checkpoint the worker made: SQLite's `wal_checkpoint` answer. */
export interface Checkpointed {
  /** Frames in the WAL, and how many of them are now in the database file. */
  walFrames: number;
  checkpointedFrames: number;
}

export interface WalCheckpointer {
  /** Resolves after the next checkpoint the worker makes (for tests and diagnostics). */
  nextCheckpoint(): Promise<Checkpointed>;
  /** Stops the timer and the worker. */
  stop(): Promise<void>;
}

// Runs in the worker: its own connection to the file, one PASSIVE checkpoint per message. PASSIVE
// never waits for readers or writers, so it holds up no one, the main connection least of all.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: workerData.busyTimeoutMs });
parentPort.on('message', () => {
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ walFrames: row.log, checkpointedFrames: row.checkpointed });
  } catch (error) {
    parentPort.postMessage({ failed: String(error && error.code || error) });
  }
});
`;

/**
 * Checkpoints a SQLite WAL in a worker thread, on the clock's timer, so that the service's own
 * connection can run with `wal_autocheckpoint = 0`: by default SQLite checkpoints inside the commit
 * that takes the WAL past 1,000 pages, and that copy and fsync held the event loop for 7–17 ms once
 * in every couple of hundred commits (docs/benchmarks.md). If the worker fails, `onProblem` hears it
 * and the caller turns automatic checkpoints back on.
 */
export function startWalCheckpointer(options: WalCheckpointerOptions): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path: options.path, busyTimeoutMs: options.busyTimeoutMs ?? 5_000 } });
  // The timer keeps the service going; the worker alone never keeps a process alive.
  worker.unref();
  let stopped = false;
  let inFlight = false;
  let waiters: Array<(done: Checkpointed) => void> = [];
  let cancel: (() => void) | undefined;

  const fail = (error: Error) => {
    if (stopped) return;
    stopped = true;
    cancel?.();
    void worker.terminate();
    options.onProblem?.(error);
  };
  worker.on('message', (message: Checkpointed | { failed: string }) => {
    inFlight = false;
    if ('failed' in message) return fail(new Error(`the WAL checkpoint worker failed: ${message.failed}`));
    const done = waiters;
    waiters = [];
    for (const resolve of done) resolve(message);
  });
  worker.on('error', fail);
  worker.on('exit', (code) => {
    if (!stopped) fail(new Error(`the WAL checkpoint worker exited (${code})`));
  });

  const tick = () => {
    if (stopped) return;
    if (!inFlight) {
      inFlight = true;
      worker.postMessage('checkpoint');
    }
    cancel = options.clock.setTimer(tick, options.everyMs ?? CHECKPOINT_EVERY_MS);
  };
  cancel = options.clock.setTimer(tick, options.everyMs ?? CHECKPOINT_EVERY_MS);

  return {
    nextCheckpoint: () => new Promise<Checkpointed>((resolve) => waiters.push(resolve)),
    async stop() {
      if (stopped) return;
      stopped = true;
      cancel?.();
      await worker.terminate();
    },
  };
}
