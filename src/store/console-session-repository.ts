import type Database from 'better-sqlite3';
import type { ConsoleSessionRepository } from '../core/ports/store.js';
import { inWriteTransaction } from './write-transaction.js';

/** The name of the one row of `console_keys`: the key console sessions are signed with. */
const SESSION_KEY = 'session';

/** The statements both engines run (named parameters are `@name` in both adapters). */
export const CONSOLE_SESSION_SQL = {
  offerKey: `INSERT INTO console_keys (name, value, created_at) VALUES ('${SESSION_KEY}', @candidate, @now) ON CONFLICT (name) DO NOTHING`,
  readKey: `SELECT value FROM console_keys WHERE name = '${SESSION_KEY}'`,
  end: 'INSERT INTO console_sessions_ended (sid, expires_at, ended_at) VALUES (@sid, @expiresAt, @now) ON CONFLICT (sid) DO NOTHING',
  forgetExpired: 'DELETE FROM console_sessions_ended WHERE expires_at <= @now',
  isEnded: 'SELECT 1 AS ended FROM console_sessions_ended WHERE sid = @sid',
} as const;

export class SqliteConsoleSessionRepository implements ConsoleSessionRepository {
  private readonly offerKey;
  private readonly readKey;
  private readonly endSession;
  private readonly forgetExpired;
  private readonly isEndedRow;

  constructor(private readonly db: Database.Database) {
    this.offerKey = db.prepare<{ candidate: string; now: number }>(CONSOLE_SESSION_SQL.offerKey);
    this.readKey = db.prepare<[], string>(CONSOLE_SESSION_SQL.readKey).pluck();
    this.endSession = db.prepare<{ sid: string; expiresAt: number; now: number }>(CONSOLE_SESSION_SQL.end);
    this.forgetExpired = db.prepare<{ now: number }>(CONSOLE_SESSION_SQL.forgetExpired);
    this.isEndedRow = db.prepare<{ sid: string }, { ended: number }>(CONSOLE_SESSION_SQL.isEnded);
  }

  async signingKey(candidate: string, now: number): Promise<string> {
    return inWriteTransaction(this.db, () => {
      this.offerKey.run({ candidate, now });
      const stored = this.readKey.get();
      if (stored === undefined) throw new Error('console_keys has no session key after storing one');
      return stored;
    });
  }

  async end(sid: string, expiresAt: number, now: number): Promise<void> {
    inWriteTransaction(this.db, () => {
      this.forgetExpired.run({ now });
      this.endSession.run({ sid, expiresAt, now });
    });
  }

  async isEnded(sid: string): Promise<boolean> {
    return this.isEndedRow.get({ sid }) !== undefined;
  }
}
