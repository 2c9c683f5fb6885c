import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { ProcessRecord } from '../core/ports/store.js';
import { isRunningOnThisHost, newProcessIdentity, releaseProcessIdentity } from './process-identity.js';

const record = (id: string, pid: number): ProcessRecord => ({ id, host: 'h', pid, startedAt: 0, heartbeatAt: 0, aliveUntil: 0, stoppedAt: null });

describe('process identity', () => {
  it('is unique per service, names this pid, and has no "/" (workers append "/<worker>")', () => {
    const [a, b] = [newProcessIdentity(), newProcessIdentity()];
    expect(a.id).not.toBe(b.id);
    expect(a.pid).toBe(process.pid);
    expect(a.id).not.toContain('/');
    expect(a.host).toBe(b.host);
    releaseProcessIdentity(a.id);
    releaseProcessIdentity(b.id);
  });

  it('knows that a process whose pid is gone no longer runs', () => {
    const child = spawnSync(process.execPath, ['-e', '0']);
    expect(child.status).toBe(0);
    expect(isRunningOnThisHost(record('h:gone', child.pid))).toBe(false);
  });

  it('cannot tell for a pid that exists: it may be another program that reused it', () => {
    expect(isRunningOnThisHost(record('h:parent', process.ppid))).toBeUndefined();
  });

  it('with our own pid, runs only while it is one of the services of this process', () => {
    const self = newProcessIdentity();
    expect(isRunningOnThisHost(record(self.id, process.pid))).toBe(true);
    // A predecessor with the same pid (a container restarted as pid 1) is not us, so it is gone.
    expect(isRunningOnThisHost(record('h:predecessor', process.pid))).toBe(false);
    releaseProcessIdentity(self.id);
    expect(isRunningOnThisHost(record(self.id, process.pid))).toBe(false);
  });
});
