/**
 * Personal API keys at rest: sealed in a real SQLite file (the file is scanned for the raw
 * key), refused at start under a missing or wrong AGENT_BRIDGE_SECRET, and re-sealed by
 * `agent-bridge secrets rotate` through the real command tree.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StartupError } from '../../src/core/startup-error.js';
import { KeyBox } from '../../src/people/key-box.js';
import { checkStoredKeys, PersonKeys } from '../../src/people/person-keys.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import { runCliInProcess } from '../helpers/cli-context.js';
import { tempDir } from '../store/helpers.js';

const OLD_SECRET = 'old-secret-'.padEnd(40, 'o');
const NEW_SECRET = 'new-secret-'.padEnd(40, 'n');
const KEYS = { U0AAAA001: 'wk_personal_alice_5f3e9c1d7b2a4e60A1c3', U0BBBB002: 'wk_personal_bob_0d9e8c7b6a5f4e3dB2d4' };

/** Every byte of the database's files (main file, WAL, shared memory) as one text. */
function databaseBytes(dir: string): string {
  return readdirSync(dir)
    .map((name) => readFileSync(path.join(dir, name)).toString('latin1'))
    .join('\n');
}

describe('personal keys at rest', () => {
  let dir: { dir: string; remove: () => void };
  let file: string;
  let store: SqliteStore;

  beforeEach(async () => {
    dir = tempDir();
    file = path.join(dir.dir, 'bridge.db');
    store = openSqliteStore({ path: file });
    const keys = new PersonKeys(store.personKeys, new KeyBox(OLD_SECRET));
    for (const [person, key] of Object.entries(KEYS)) await keys.connect(person, key, 1_000);
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  it('are sealed: the database files hold no raw key, only the last 4 characters', async () => {
    const keys = new PersonKeys(store.personKeys, new KeyBox(OLD_SECRET));
    expect(await keys.open('U0AAAA001')).toBe(KEYS.U0AAAA001);
    expect(await keys.summary('U0BBBB002')).toEqual({ personId: 'U0BBBB002', lastFour: 'B2d4', connectedAt: 1_000, lastUsedAt: null });
    await keys.used('U0BBBB002', 2_000);
    expect((await keys.summary('U0BBBB002'))?.lastUsedAt).toBe(2_000);

    const before = databaseBytes(dir.dir);
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    const bytes = before + databaseBytes(dir.dir);
    expect(bytes).toContain('U0AAAA001'); // the scan reads the rows at all
    for (const key of Object.values(KEYS)) {
      expect(bytes).not.toContain(key);
      expect(bytes).not.toContain(key.slice(0, 16));
    }

    expect(await keys.disconnect('U0AAAA001')).toBe(true);
    expect(await keys.open('U0AAAA001')).toBeUndefined();
  });

  it.each([
    ['missing', undefined, /AGENT_BRIDGE_SECRET is not set, but 2 personal API key\(s\) are stored/],
    ['wrong', NEW_SECRET, /AGENT_BRIDGE_SECRET does not open the stored personal API keys \(wrong_secret\)/],
  ])('refuse to start with a %s AGENT_BRIDGE_SECRET', async (_what, secret, message) => {
    const attempt = checkStoredKeys(store.personKeys, secret);
    await expect(attempt).rejects.toBeInstanceOf(StartupError);
    await expect(attempt).rejects.toThrow(message);
  });

  it('start with the right secret, and without one when no key is stored', async () => {
    const box = await checkStoredKeys(store.personKeys, OLD_SECRET);
    expect(box?.open('U0AAAA001', (await store.personKeys.get('U0AAAA001'))?.sealed ?? '')).toBe(KEYS.U0AAAA001);
    const empty = openSqliteStore({ path: ':memory:' });
    expect(await checkStoredKeys(empty.personKeys, undefined)).toBeUndefined();
    await empty.close();
  });

  describe('agent-bridge secrets rotate', () => {
    const env = (extra: Record<string, string>) => ({ DATABASE_PATH: file, ...extra });

    it('re-seals every key under the new secret; the old one no longer opens them', async () => {
      const sealedBefore = (await store.personKeys.list()).map((key) => key.sealed);
      const result = await runCliInProcess(['secrets', 'rotate'], env({ AGENT_BRIDGE_SECRET: OLD_SECRET, AGENT_BRIDGE_NEW_SECRET: NEW_SECRET }), dir.dir);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Re-sealed 2 personal API key(s)');

      const after = await store.personKeys.list();
      expect(after.map((key) => key.sealed)).not.toEqual(expect.arrayContaining(sealedBefore));
      const keys = new PersonKeys(store.personKeys, (await checkStoredKeys(store.personKeys, NEW_SECRET)) as KeyBox);
      expect(await keys.open('U0AAAA001')).toBe(KEYS.U0AAAA001);
      expect(await keys.open('U0BBBB002')).toBe(KEYS.U0BBBB002);
      await expect(checkStoredKeys(store.personKeys, OLD_SECRET)).rejects.toThrow(/AGENT_BRIDGE_SECRET/);
      for (const text of [result.stdout, result.stderr])
        for (const secret of [OLD_SECRET, NEW_SECRET, ...Object.values(KEYS)]) expect(text).not.toContain(secret);
    });

    it.each([
      ['a wrong current secret', { AGENT_BRIDGE_SECRET: 'w'.repeat(40), AGENT_BRIDGE_NEW_SECRET: NEW_SECRET }, /AGENT_BRIDGE_SECRET does not open/],
      ['no new secret', { AGENT_BRIDGE_SECRET: OLD_SECRET }, /AGENT_BRIDGE_NEW_SECRET is not set/],
      ['a short new secret', { AGENT_BRIDGE_SECRET: OLD_SECRET, AGENT_BRIDGE_NEW_SECRET: 'short' }, /AGENT_BRIDGE_NEW_SECRET is too short/],
      ['the same secret', { AGENT_BRIDGE_SECRET: OLD_SECRET, AGENT_BRIDGE_NEW_SECRET: OLD_SECRET }, /is the same as AGENT_BRIDGE_SECRET/],
    ])('refuses %s (exit 2) and changes nothing', async (_what, extra, message) => {
      const before = await store.personKeys.list();
      const result = await runCliInProcess(['secrets', 'rotate'], env(extra), dir.dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(await store.personKeys.list()).toEqual(before);
      for (const secret of [OLD_SECRET, NEW_SECRET, ...Object.values(KEYS)]) expect(result.stderr).not.toContain(secret);
    });

    it('refuses while the service runs', async () => {
      await store.processes.heartbeat({ id: 'p1', host: 'h', pid: 42 }, 5_000, 60_000);
      const result = await runCliInProcess(
        ['secrets', 'rotate'],
        env({ AGENT_BRIDGE_SECRET: OLD_SECRET, AGENT_BRIDGE_NEW_SECRET: NEW_SECRET }),
        dir.dir,
        10_000,
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/The service is running \(pid 42 on h\)/);
    });
  });
});

describe('agent-bridge serve with personal keys stored', () => {
  it.each([
    ['without AGENT_BRIDGE_SECRET', {}, /AGENT_BRIDGE_SECRET is not set, but 1 personal API key\(s\) are stored/],
    ['with another secret', { AGENT_BRIDGE_SECRET: NEW_SECRET }, /AGENT_BRIDGE_SECRET does not open the stored personal API keys/],
  ])('refuses to start %s: exit 2 naming the variable', async (_what, extra, message) => {
    const dir = tempDir();
    const file = path.join(dir.dir, 'bridge.db');
    const store = openSqliteStore({ path: file });
    await new PersonKeys(store.personKeys, new KeyBox(OLD_SECRET)).connect('U0AAAA001', KEYS.U0AAAA001, 1);
    await store.close();
    const result = await runCliInProcess(['serve'], { DATABASE_PATH: file, PORT: '0', HOST: '127.0.0.1', ...extra }, dir.dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain(KEYS.U0AAAA001);
    dir.remove();
  });
});
