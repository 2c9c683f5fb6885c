import type Database from 'better-sqlite3';
import type { PersonLinkHow, PersonLinkRecord, PersonLinkRepository } from '../core/ports/store.js';

export interface PersonLinkRow {
  surface: string;
  user_id: string;
  person_id: string;
  how: PersonLinkHow;
  linked_at: number;
}

/** A stored row as the port's record. */
export function toPersonLink(row: PersonLinkRow): PersonLinkRecord {
  return { surface: row.surface, userId: row.user_id, personId: row.person_id, how: row.how, linkedAt: Number(row.linked_at) };
}

/**
 * The one upsert both engines run: a console link replaces any link, an email link only fills a gap
 * (named parameters are `@name` in both adapters).
 */
export const PUT_PERSON_LINK = `INSERT INTO person_links (surface, user_id, person_id, how, linked_at)
  VALUES (@surface, @userId, @personId, @how, @linkedAt)
  ON CONFLICT (surface, user_id) DO UPDATE SET person_id = excluded.person_id, how = excluded.how, linked_at = excluded.linked_at
  WHERE excluded.how = 'console'`;

export const LIST_PERSON_LINKS = 'SELECT * FROM person_links ORDER BY surface, user_id';

export class SqlitePersonLinkRepository implements PersonLinkRepository {
  private readonly putRow;
  private readonly getRow;
  private readonly listRows;
  private readonly removeRow;

  constructor(db: Database.Database) {
    this.putRow = db.prepare<PersonLinkRecord>(PUT_PERSON_LINK);
    this.getRow = db.prepare<[string, string], PersonLinkRow>('SELECT * FROM person_links WHERE surface = ? AND user_id = ?');
    this.listRows = db.prepare<[], PersonLinkRow>(LIST_PERSON_LINKS);
    this.removeRow = db.prepare<[string, string]>('DELETE FROM person_links WHERE surface = ? AND user_id = ?');
  }

  async put(record: PersonLinkRecord): Promise<boolean> {
    const { surface, userId, personId, how, linkedAt } = record;
    return this.putRow.run({ surface, userId, personId, how, linkedAt }).changes > 0;
  }

  async get(surface: string, userId: string): Promise<PersonLinkRecord | undefined> {
    const row = this.getRow.get(surface, userId);
    return row ? toPersonLink(row) : undefined;
  }

  async list(): Promise<PersonLinkRecord[]> {
    return this.listRows.all().map(toPersonLink);
  }

  async remove(surface: string, userId: string): Promise<boolean> {
    return this.removeRow.run(surface, userId).changes > 0;
  }
}
