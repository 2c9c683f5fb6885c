import type Database from 'better-sqlite3';
import type { SettingRepository } from '../core/ports/store.js';
import { inWriteTransaction } from './write-transaction.js';

export class SqliteSettingRepository implements SettingRepository {
  private readonly getValue;
  private readonly setValue;

  constructor(private readonly db: Database.Database) {
    this.getValue = db.prepare<[string], string>('SELECT value FROM settings WHERE name = ?').pluck();
    this.setValue = db.prepare<{ name: string; value: string }>(
      'INSERT INTO settings (name, value) VALUES (@name, @value) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    );
  }

  async get(name: string): Promise<string | undefined> {
    return this.getValue.get(name);
  }

  async set(name: string, value: string): Promise<void> {
    inWriteTransaction(this.db, () => this.setValue.run({ name, value }));
  }
}
