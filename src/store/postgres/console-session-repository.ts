import type pg from 'pg';
import type { ConsoleSessionRepository } from '../../core/ports/store.js';
import { CONSOLE_SESSION_SQL } from '../console-session-repository.js';
import { row, run } from './pg-sql.js';

export class PostgresConsoleSessionRepository implements ConsoleSessionRepository {
  constructor(private readonly pool: pg.Pool) {}

  async signingKey(candidate: string, now: number): Promise<string> {
    // Two statements, not one: a replica whose INSERT waited on another's and found its row must read
    // it with a snapshot taken after that commit, which a CTE of the same statement would not have.
    await run(this.pool, CONSOLE_SESSION_SQL.offerKey, { candidate, now });
    const stored = await row<{ value: string }>(this.pool, CONSOLE_SESSION_SQL.readKey);
    if (stored === undefined) throw new Error('console_keys has no session key after storing one');
    return stored.value;
  }

  async end(sid: string, expiresAt: number, now: number): Promise<void> {
    await run(this.pool, CONSOLE_SESSION_SQL.forgetExpired, { now });
    await run(this.pool, CONSOLE_SESSION_SQL.end, { sid, expiresAt, now });
  }

  async isEnded(sid: string): Promise<boolean> {
    return (await row(this.pool, CONSOLE_SESSION_SQL.isEnded, { sid })) !== undefined;
  }
}
