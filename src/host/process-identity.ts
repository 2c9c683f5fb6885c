/**
 * Who this process is, for liveness (core/liveness/liveness.ts): a unique id, the host as precisely as the
 * operating system tells (so a pid is only ever compared with pids of the same PID namespace), and
 * whether a process recorded on this host still runs.
 */
import { randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { ProcessIdentity } from '../core/liveness/liveness.js';
import type { ProcessRecord } from '../core/ports/store.js';

/** Services started in this very process (tests and embedders may start several): they share our pid. */
const inThisProcess = new Set<string>();

/**
 * Containers sharing the host's network also share its hostname while each has its own pids: the PID
 * namespace (Linux) keeps them apart. Elsewhere the hostname alone.
 */
function hostKey(): string {
  try {
    return `${hostname()} ${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return hostname();
  }
}

/** A new identity: host, pid and a random part (no `/`: owners of its workers append `/<worker>`). */
export function newProcessIdentity(): ProcessIdentity {
  const id = `${hostname().replaceAll('/', '_')}:${process.pid}:${randomBytes(4).toString('hex')}`;
  inThisProcess.add(id);
  return { id, host: hostKey(), pid: process.pid };
}

/** Forgets an identity of this process once its service stopped. */
export function releaseProcessIdentity(id: string): void {
  inThisProcess.delete(id);
}

/**
 * Whether a process recorded on this host still runs: false when its pid is gone (or is ours but the
 * service is not one of ours: a predecessor in a container restarted with the same pid), undefined
 * when the pid belongs to a process we cannot identify (pids are reused: better wait for its beats).
 */
export function isRunningOnThisHost(record: ProcessRecord): boolean | undefined {
  if (record.pid === process.pid) return inThisProcess.has(record.id);
  try {
    process.kill(record.pid, 0);
    return undefined;
  } catch (error) {
    // EPERM: a process with that pid exists (another user's); only ESRCH says it is gone.
    return (error as NodeJS.ErrnoException).code === 'ESRCH' ? false : undefined;
  }
}
