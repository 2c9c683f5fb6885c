import type Database from 'better-sqlite3';
import type { PersonKeyRecord, PersonKeyRepository } from '../core/ports/store.js';
import { inWriteTransaction } from './write-transaction.js';

interface PersonKeyRow {
  person_id: string;
  sealed: string;
  last_four: string;
  connected_at: number;
  last_used_at: number | null;
}

/** A stored row as the port's record. */
export function toPersonKey(row: PersonKeyRow): PersonKeyRecord {
  return { personId: row.person_id, sealed: row.sealed, lastFour: row.last_four, connectedAt: row.connected_at, lastUsedAt: row.last_used_at };
}

export class SqlitePersonKeyRepository implements PersonKeyRepository {
  private readonly putRow;
  private readonly getRow;
  private readonly removeRow;
  private readonly touchRow;
  private readonly countRows;
  private readonly listRows;
  private readonly resealRow;

  constructor(private readonly db: Database.Database) {
    this.putRow = db.prepare<PersonKeyRow>(
      `INSERT INTO person_keys (person_id, sealed, last_four, connected_at, last_used_at)
       VALUES (@person_id, @sealed, @last_four, @connected_at, NULL)
       ON CONFLICT (person_id) DO UPDATE SET sealed = excluded.sealed, last_four = excluded.last_four,
         connected_at = excluded.connected_at, last_used_at = NULL`,
    );
    this.getRow = db.prepare<[string], PersonKeyRow>('SELECT * FROM person_keys WHERE person_id = ?');
    this.removeRow = db.prepare<[string]>('DELETE FROM person_keys WHERE person_id = ?');
    this.touchRow = db.prepare<[number, string]>('UPDATE person_keys SET last_used_at = ? WHERE person_id = ?');
    this.countRows = db.prepare<[], number>('SELECT COUNT(*) FROM person_keys').pluck();
    this.listRows = db.prepare<[], PersonKeyRow>('SELECT * FROM person_keys ORDER BY person_id');
    this.resealRow = db.prepare<[string, string]>('UPDATE person_keys SET sealed = ? WHERE person_id = ?');
  }

  async put(record: Omit<PersonKeyRecord, 'lastUsedAt'>): Promise<void> {
    this.putRow.run({ person_id: record.personId, sealed: record.sealed, last_four: record.lastFour, connected_at: record.connectedAt, last_used_at: null });
  }

  async get(personId: string): Promise<PersonKeyRecord | undefined> {
    const row = this.getRow.get(personId);
    return row ? toPersonKey(row) : undefined;
  }

  async remove(personId: string): Promise<boolean> {
    return this.removeRow.run(personId).changes > 0;
  }

  async touch(personId: string, now: number): Promise<void> {
    this.touchRow.run(now, personId);
  }

  async count(): Promise<number> {
    return this.countRows.get() ?? 0;
  }

  async list(): Promise<PersonKeyRecord[]> {
    return this.listRows.all().map(toPersonKey);
  }

  async reseal(updates: readonly { personId: string; sealed: string }[]): Promise<number> {
    return inWriteTransaction(this.db, () => updates.reduce((changed, update) => changed + this.resealRow.run(update.sealed, update.personId).changes, 0));
  }
}
