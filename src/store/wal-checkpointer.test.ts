import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/store/helpers.js';
import { TestClock } from '../core/ports/clock.js';
import { openSqliteStore, type SqliteStore } from './sqlite-store.js';

/*
 * The service's SQLite connection leaves the WAL's checkpoints to a worker thread:
 * a commit never copies the WAL into the database file; the worker does, on the clock's timer.
 */

const EVERY_MS = 1_000;
let open: { store: SqliteStore; remove: () => void } | undefined;
afterEach(async () => {
  await open?.store.close();
  open?.remove();
  open = undefined;
});

function start(checkpoints: boolean) {
  const { dir, remove } = tempDir();
  const path = join(dir, 'bridge.db');
  const clock = new TestClock();
  const store = openSqliteStore({ path, ...(checkpoints && { checkpoints: { clock, everyMs: EVERY_MS } }) });
  open = { store, remove };
  return { store, clock, fileBytes: () => statSync(path).size, walBytes: () => statSync(`${path}-wal`).size };
}

/** About 6 MB in commits of three rows: past the 1,000 pages (4 MB) at which SQLite checkpoints by itself. */
function fill(store: SqliteStore): void {
  store.db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, payload TEXT)');
  const insert = store.db.prepare('INSERT INTO filler (payload) VALUES (?)');
  const commit = store.db.transaction(() => {
    for (let row = 0; row < 3; row++) insert.run('x'.repeat(2_000));
  });
  for (let n = 0; n < 1_000; n++) commit.immediate();
}

describe('WAL checkpoints in a worker thread', () => {
  it('by default a commit checkpoints: the database file grows while the rows are written', () => {
    const { store, fileBytes } = start(false);
    fill(store);
    expect(store.checkpointer).toBeUndefined();
    expect(fileBytes()).toBeGreaterThan(4_000_000);
  });

  it('with the worker no commit checkpoints; the worker does on the next tick', async () => {
    const { store, clock, fileBytes, walBytes } = start(true);
    const before = fileBytes();
    fill(store);
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    expect(fileBytes()).toBe(before);
    expect(walBytes()).toBeGreaterThan(6_000_000);

    const checkpointed = store.checkpointer?.nextCheckpoint();
    await clock.advance(EVERY_MS);
    const done = await checkpointed;
    expect(done?.walFrames).toBeGreaterThan(1_000);
    expect(done?.checkpointedFrames).toBe(done?.walFrames);
    expect(fileBytes()).toBeGreaterThan(6_000_000);
  });

  it('stops with the store: its timer is cancelled', async () => {
    const { store, clock } = start(true);
    expect(clock.pending).toBe(1);
    await store.close();
    expect(clock.pending).toBe(0);
  });

  it('a worker that cannot open the database is reported, and the connection checkpoints by itself again', async () => {
    const { dir, remove } = tempDir();
    const folder = join(dir, 'data');
    const problems: Error[] = [];
    const reported = new Promise<void>((resolve) => {
      const onProblem = (error: Error) => {
        problems.push(error);
        resolve();
      };
      const store = openSqliteStore({ path: join(folder, 'bridge.db'), checkpoints: { clock: new TestClock(), onProblem } });
      open = { store, remove };
      // The worker thread opens the file only once it has started: by then its folder is gone.
      rmSync(folder, { recursive: true });
    });
    await reported;
    expect(problems).toHaveLength(1);
    expect(open?.store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  });

  it('in memory there is no WAL and no worker', async () => {
    const store = openSqliteStore({ path: ':memory:', checkpoints: { clock: new TestClock() } });
    expect(store.checkpointer).toBeUndefined();
    await store.close();
  });
});
