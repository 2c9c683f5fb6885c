import type pg from 'pg';
import type { PersonKeyRecord, PersonKeyRepository } from '../../core/ports/store.js';
import { toPersonKey } from '../person-key-repository.js';
import { changes, row, rows, run, transaction } from './pg-sql.js';

interface PersonKeyRow {
  person_id: string;
  sealed: string;
  last_four: string;
  connected_at: number;
  last_used_at: number | null;
}

export class PostgresPersonKeyRepository implements PersonKeyRepository {
  constructor(private readonly pool: pg.Pool) {}

  async put(record: Omit<PersonKeyRecord, 'lastUsedAt'>): Promise<void> {
    await run(
      this.pool,
      `INSERT INTO person_keys (person_id, sealed, last_four, connected_at, last_used_at)
       VALUES (@personId, @sealed, @lastFour, @connectedAt, NULL)
       ON CONFLICT (person_id) DO UPDATE SET sealed = excluded.sealed, last_four = excluded.last_four,
         connected_at = excluded.connected_at, last_used_at = NULL`,
      { personId: record.personId, sealed: record.sealed, lastFour: record.lastFour, connectedAt: record.connectedAt },
    );
  }

  async get(personId: string): Promise<PersonKeyRecord | undefined> {
    const found = await row<PersonKeyRow>(this.pool, 'SELECT * FROM person_keys WHERE person_id = @personId', { personId });
    return found ? toPersonKey(found) : undefined;
  }

  async remove(personId: string): Promise<boolean> {
    return (await changes(this.pool, 'DELETE FROM person_keys WHERE person_id = @personId', { personId })) > 0;
  }

  async touch(personId: string, now: number): Promise<void> {
    await run(this.pool, 'UPDATE person_keys SET last_used_at = @now WHERE person_id = @personId', { personId, now });
  }

  async count(): Promise<number> {
    return (await row<{ n: number }>(this.pool, 'SELECT COUNT(*)::int AS n FROM person_keys'))?.n ?? 0;
  }

  async list(): Promise<PersonKeyRecord[]> {
    return (await rows<PersonKeyRow>(this.pool, 'SELECT * FROM person_keys ORDER BY person_id')).map(toPersonKey);
  }

  async reseal(updates: readonly { personId: string; sealed: string }[]): Promise<number> {
    return transaction(this.pool, async (client) => {
      let changed = 0;
      for (const update of updates) {
        changed += await changes(client, 'UPDATE person_keys SET sealed = @sealed WHERE person_id = @personId', update);
      }
      return changed;
    });
  }
}
