import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewOutboxRow, NewTrackedRun, NewTrigger } from '../../src/core/ports/store.js';

/** A fresh temporary directory; `remove()` deletes it with everything in it. */
export function tempDir(prefix = 'agent-bridge-store-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function aTrigger(overrides: Partial<NewTrigger> = {}): NewTrigger {
  // Tests may pair a kind with another kind's payload: the store keeps whatever JSON it is given.
  return {
    key: 'Ev001',
    kind: 'start',
    source: 'slack',
    anchor: 'slack:C1:1700.1',
    payload: {
      prompt: 'fix the build',
      title: 'fix the build',
      origin: { source: 'slack', channel: 'C1' },
      destinations: ['slack:C1:1700.1'],
      requester: { platform: 'slack', id: 'U1' },
    },
    ...overrides,
  } as NewTrigger;
}

export function anOutboxRow(key: string, destination = 'slack:C1:1700.1', payload: unknown = { text: key }): NewOutboxRow {
  return { key, destination, kind: 'status', payload };
}

export function aRun(runId: string, overrides: Partial<NewTrackedRun> = {}): NewTrackedRun {
  return {
    runId,
    anchor: 'slack:C1:1700.1',
    source: 'slack',
    title: 'Fix the build',
    route: { config: { name: 'slack' } },
    destinations: [overrides.anchor ?? 'slack:C1:1700.1'],
    triggerKey: 'Ev1',
    state: 'QUEUED',
    serverUpdatedAt: null,
    sessionLink: null,
    ...overrides,
  };
}
