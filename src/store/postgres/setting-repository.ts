import type pg from 'pg';
import type { SettingRepository } from '../../core/ports/store.js';
import { row, run } from './pg-sql.js';

export class PostgresSettingRepository implements SettingRepository {
  constructor(private readonly pool: pg.Pool) {}

  async get(name: string): Promise<string | undefined> {
    return (await row<{ value: string }>(this.pool, 'SELECT value FROM settings WHERE name = @name', { name }))?.value;
  }

  async set(name: string, value: string): Promise<void> {
    await run(this.pool, 'INSERT INTO settings (name, value) VALUES (@name, @value) ON CONFLICT (name) DO UPDATE SET value = excluded.value', { name, value });
  }
}
