import type Database from 'better-sqlite3';
import type { PersonLinkHow, PersonLinkRecord, PersonLinkRepository } from '../core/ports/store.js';

export interface PersonLinkRow {
  linear_user_id: string;
  slack_user_id: string;
  how: PersonLinkHow;
  linked_at: number;
}

/** A stored row as the port's record. */
export function toPersonLink(row: PersonLinkRow): PersonLinkRecord {
  return { linearUserId: row.linear_user_id, slackUserId: row.slack_user_id, how: row.how, linkedAt: Number(row.linked_at) };
}

/**
 * The one upsert both engines run: a console link replaces any link, an email link only fills a gap
 * (named parameters are `@name` in both adapters).
 */
export const PUT_PERSON_LINK = `INSERT INTO person_links (linear_user_id, slack_user_id, how, linked_at)
  VALUES (@linearUserId, @slackUserId, @how, @linkedAt)
  ON CONFLICT (linear_user_id) DO UPDATE SET slack_user_id = excluded.slack_user_id, how = excluded.how, linked_at = excluded.linked_at
  WHERE excluded.how = 'console'`;

export class SqlitePersonLinkRepository implements PersonLinkRepository {
  private readonly putRow;
  private readonly getRow;
  private readonly listRows;
  private readonly removeRow;

  constructor(db: Database.Database) {
    this.putRow = db.prepare<PersonLinkRecord>(PUT_PERSON_LINK);
    this.getRow = db.prepare<[string], PersonLinkRow>('SELECT * FROM person_links WHERE linear_user_id = ?');
    this.listRows = db.prepare<[], PersonLinkRow>('SELECT * FROM person_links ORDER BY linear_user_id');
    this.removeRow = db.prepare<[string]>('DELETE FROM person_links WHERE linear_user_id = ?');
  }

  async put(record: PersonLinkRecord): Promise<boolean> {
    const { linearUserId, slackUserId, how, linkedAt } = record;
    return this.putRow.run({ linearUserId, slackUserId, how, linkedAt }).changes > 0;
  }

  async get(linearUserId: string): Promise<PersonLinkRecord | undefined> {
    const row = this.getRow.get(linearUserId);
    return row ? toPersonLink(row) : undefined;
  }

  async list(): Promise<PersonLinkRecord[]> {
    return this.listRows.all().map(toPersonLink);
  }

  async remove(linearUserId: string): Promise<boolean> {
    return this.removeRow.run(linearUserId).changes > 0;
  }
}
