/**
 * Process liveness: each process says through the store that it is alive, every `beatMs`, and is
 * counted alive for `aliveBeats` beats after each. What a process holds — claimed triggers and
 * outbox rows, the tracker lease, schedule-fire leases — is free as soon as it stopped cleanly or
 * missed its beats (see the Store header on liveness), instead of when its leases run out (30 s for
 * a trigger, 60 s for a delivery). So a restart is not blind for half a minute, while a live process
 * keeps what it works on however long a lease-renewing task takes.
 */
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { ProcessRecord, Store } from '../ports/store.js';

/** Heartbeat period. */
export const DEFAULT_BEAT_MS = 2_000;
/**
 * Beats a process stays alive for after each one. Four beats (8 s) outlast one beat delayed by a
 * statement waiting out the SQLite busy timeout (5 s): a slow database never makes a live process
 * look dead, while a dead one is noticed within 10 s.
 */
export const DEFAULT_ALIVE_BEATS = 4;

export interface ProcessIdentity {
  /** Unique per process run, never reused; contains no `/`. The owner of the process's leases. */
  id: string;
  /** The machine, as precisely as it can tell (pids mean something only within it). */
  host: string;
  pid: number;
}

export interface LivenessDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  self: ProcessIdentity;
  /**
   * Whether a process recorded as running on this host still runs (e.g. its pid exists); undefined
   * when it cannot tell. Lets a restart free a dead predecessor's work at once instead of after its
   * beats ran out. Absent: never asked.
   */
  isRunning?: (process: ProcessRecord) => boolean | undefined;
  options?: { beatMs?: number; aliveBeats?: number };
}

/** Keeps this process's row alive and finds the processes that died; drive `beat()` every `beatMs`. */
export class Liveness {
  readonly beatMs: number;
  private readonly ttlMs: number;

  constructor(private readonly deps: LivenessDeps) {
    this.beatMs = deps.options?.beatMs ?? DEFAULT_BEAT_MS;
    this.ttlMs = this.beatMs * (deps.options?.aliveBeats ?? DEFAULT_ALIVE_BEATS);
  }

  /**
   * Registers this process, then marks stopped the processes of this host that are recorded as
   * running but do not run any more (a crash, a SIGKILL): their work is free before ours starts.
   * Returns their ids.
   */
  async start(): Promise<string[]> {
    const { store, clock, self, isRunning } = this.deps;
    await store.processes.heartbeat(self, clock.now(), this.ttlMs);
    if (!isRunning) return [];
    const gone: string[] = [];
    for (const other of await store.processes.listRunning(self.host)) {
      if (other.id === self.id || isRunning(other) !== false) continue;
      await store.processes.markStopped(other.id, clock.now());
      gone.push(other.id);
    }
    if (gone.length > 0) this.deps.logger.info({ processes: gone }, 'taking over the work of processes of this host that no longer run');
    return gone;
  }

  /** Renews this process's liveness and returns the processes found dead since (only one process gets each). */
  async beat(): Promise<string[]> {
    const { store, clock, self } = this.deps;
    const now = clock.now();
    await store.processes.heartbeat(self, now, this.ttlMs);
    const dead = await store.processes.reap(now);
    if (dead.length > 0) this.deps.logger.warn({ processes: dead }, 'processes stopped beating; their work is free');
    return dead;
  }

  /** Marks this process stopped (a clean stop): anything it still holds is free at once. */
  async stop(): Promise<void> {
    await this.deps.store.processes.markStopped(this.deps.self.id, this.deps.clock.now());
  }
}
