import type pg from 'pg';
import type { PersonLinkRecord, PersonLinkRepository } from '../../core/ports/store.js';
import { LIST_PERSON_LINKS, PUT_PERSON_LINK, toPersonLink, type PersonLinkRow } from '../person-link-repository.js';
import { changes, row, rows } from './pg-sql.js';

export class PostgresPersonLinkRepository implements PersonLinkRepository {
  constructor(private readonly pool: pg.Pool) {}

  async put(record: PersonLinkRecord): Promise<boolean> {
    const { surface, userId, personId, how, linkedAt } = record;
    return (await changes(this.pool, PUT_PERSON_LINK, { surface, userId, personId, how, linkedAt })) > 0;
  }

  async get(surface: string, userId: string): Promise<PersonLinkRecord | undefined> {
    const found = await row<PersonLinkRow>(this.pool, 'SELECT * FROM person_links WHERE surface = @surface AND user_id = @userId', { surface, userId });
    return found ? toPersonLink(found) : undefined;
  }

  async list(): Promise<PersonLinkRecord[]> {
    return (await rows<PersonLinkRow>(this.pool, LIST_PERSON_LINKS)).map(toPersonLink);
  }

  async remove(surface: string, userId: string): Promise<boolean> {
    return (await changes(this.pool, 'DELETE FROM person_links WHERE surface = @surface AND user_id = @userId', { surface, userId })) > 0;
  }
}
