import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inWriteTransaction } from './write-transaction.js';

describe('inWriteTransaction', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = new Database(':memory:');
    db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
  });
  afterEach(() => db.close());
  const values = () =>
    db
      .prepare<[], { v: number }>('SELECT v FROM t ORDER BY v')
      .all()
      .map((row) => row.v);

  it('commits what the body wrote and answers what it returned', () => {
    expect(inWriteTransaction(db, () => db.prepare('INSERT INTO t (v) VALUES (1)').run().changes)).toBe(1);
    expect(values()).toEqual([1]);
    expect(db.inTransaction).toBe(false);
  });

  it('rolls everything back when the body throws, and the next call starts clean', () => {
    expect(() =>
      inWriteTransaction(db, () => {
        db.prepare('INSERT INTO t (v) VALUES (1)').run();
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(values()).toEqual([]);
    inWriteTransaction(db, () => db.prepare('INSERT INTO t (v) VALUES (2)').run());
    expect(values()).toEqual([2]);
  });

  it('nests as a savepoint: an inner failure caught by the outer body undoes only the inner writes', () => {
    inWriteTransaction(db, () => {
      db.prepare('INSERT INTO t (v) VALUES (1)').run();
      try {
        inWriteTransaction(db, () => {
          db.prepare('INSERT INTO t (v) VALUES (2)').run();
          throw new Error('inner');
        });
      } catch {
        // the outer transaction goes on
      }
      db.prepare('INSERT INTO t (v) VALUES (3)').run();
    });
    expect(values()).toEqual([1, 3]);
  });

  it('takes the write lock first (BEGIN IMMEDIATE)', () => {
    const seen: string[] = [];
    const traced = new Database(':memory:', { verbose: (sql) => seen.push(String(sql)) });
    try {
      inWriteTransaction(traced, () => traced.prepare('SELECT 1').get());
      expect(seen).toContain('BEGIN IMMEDIATE');
    } finally {
      traced.close();
    }
  });
});
