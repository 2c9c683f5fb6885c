import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/store/helpers.js';
import { SchemaTooNewError, appliedMigrations, migrate } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';
import { openSqliteStore } from './sqlite-store.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});
function tempPath(...parts: string[]): string {
  const temp = tempDir();
  cleanups.push(temp.remove);
  return join(temp.dir, ...parts);
}

function tableNames(db: Database.Database): string[] {
  return db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all();
}

describe('migrations', () => {
  it('are numbered 1, 2, 3, … with names', () => {
    expect(MIGRATIONS.map((m) => m.id)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    for (const m of MIGRATIONS) expect(m.name).toMatch(/^[a-z0-9-]+$/);
  });

  it('build the schema from an empty database and record themselves', async () => {
    const store = openSqliteStore({ path: ':memory:', now: () => 1234 });
    expect(tableNames(store.db)).toEqual([
      'anchor_runs',
      'anchors',
      'approvals',
      'audit_entries',
      'console_keys',
      'console_sessions_ended',
      'event_keys',
      'leases',
      'outbox',
      'person_keys',
      'person_links',
      'processes',
      'run_reservations',
      'run_states',
      'schedule_fires',
      'schema_migrations',
      'settings',
      'tracked_runs',
      'triggers',
    ]);
    expect(appliedMigrations(store.db)).toEqual(MIGRATIONS.map(({ id, name }) => ({ id, name, appliedAt: 1234 })));
    await store.close();
  });

  it('apply nothing when the file is opened again', async () => {
    const path = tempPath('nested', 'dir', 'bridge.db');
    const first = openSqliteStore({ path, now: () => 1000 });
    expect(existsSync(path)).toBe(true);
    await first.eventKeys.remember('kept', 1);
    await first.close();

    const second = openSqliteStore({ path, now: () => 2000 });
    expect(appliedMigrations(second.db)).toEqual(MIGRATIONS.map(({ id, name }) => ({ id, name, appliedAt: 1000 })));
    expect(migrate(second.db, () => 3000)).toEqual([]);
    expect(await second.eventKeys.remember('kept', 2)).toBe(false);
    await second.close();
  });

  it('apply only the new ones, each in its own transaction', () => {
    const db = new Database(':memory:');
    const [first] = MIGRATIONS;
    if (!first) throw new Error('no migrations');
    expect(migrate(db, () => 1, [first])).toEqual([1]);
    const next = { id: 2, name: 'next', sql: 'CREATE TABLE extra (x INTEGER)' };
    const broken = { id: 3, name: 'broken', sql: 'CREATE TABLE half (x INTEGER); CREATE TABLE oops (' };
    expect(() => migrate(db, () => 2, [first, next, broken])).toThrow();
    expect(appliedMigrations(db).map((m) => m.id)).toEqual([1, 2]);
    expect(tableNames(db)).toContain('extra');
    expect(tableNames(db)).not.toContain('half'); // rolled back with its failed migration
    db.close();
  });

  it('refuse a database written by a newer version, with a clear error', async () => {
    const path = tempPath('bridge.db');
    const store = openSqliteStore({ path });
    store.db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(99, 'future', 1);
    await store.close();

    let error: unknown;
    try {
      openSqliteStore({ path });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SchemaTooNewError);
    expect((error as Error).message).toMatch(new RegExp(`migration 99.*up to ${Math.max(...MIGRATIONS.map((m) => m.id))}.*newer version`));
  });
});

describe('openSqliteStore', () => {
  it('sets the connection up for several processes', async () => {
    const store = openSqliteStore({ path: tempPath('db', 'bridge.db') });
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(store.db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    await store.close();
  });

  it('answers ping and closes once', async () => {
    const store = openSqliteStore({ path: ':memory:' });
    await expect(store.ping()).resolves.toBeUndefined();
    await store.close();
    await expect(store.close()).resolves.toBeUndefined();
    await expect(store.ping()).rejects.toThrow();
  });
});
