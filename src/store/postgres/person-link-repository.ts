import type pg from 'pg';
import type { PersonLinkRecord, PersonLinkRepository } from '../../core/ports/store.js';
import { PUT_PERSON_LINK, toPersonLink, type PersonLinkRow } from '../person-link-repository.js';
import { changes, row, rows } from './pg-sql.js';

export class PostgresPersonLinkRepository implements PersonLinkRepository {
  constructor(private readonly pool: pg.Pool) {}

  async put(record: PersonLinkRecord): Promise<boolean> {
    const { linearUserId, slackUserId, how, linkedAt } = record;
    return (await changes(this.pool, PUT_PERSON_LINK, { linearUserId, slackUserId, how, linkedAt })) > 0;
  }

  async get(linearUserId: string): Promise<PersonLinkRecord | undefined> {
    const found = await row<PersonLinkRow>(this.pool, 'SELECT * FROM person_links WHERE linear_user_id = @linearUserId', { linearUserId });
    return found ? toPersonLink(found) : undefined;
  }

  async list(): Promise<PersonLinkRecord[]> {
    return (await rows<PersonLinkRow>(this.pool, 'SELECT * FROM person_links ORDER BY linear_user_id')).map(toPersonLink);
  }

  async remove(linearUserId: string): Promise<boolean> {
    return (await changes(this.pool, 'DELETE FROM person_links WHERE linear_user_id = @linearUserId', { linearUserId })) > 0;
  }
}
