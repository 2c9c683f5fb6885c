import type Database from 'better-sqlite3';
import type { AnchorRepository } from '../core/ports/store.js';
import { inWriteTransaction } from './write-transaction.js';

/** `currentRunVia` (both stores run it): the anchor's run, else the run of the anchor its alias setting names. */
export const CURRENT_RUN_VIA_SQL = `
SELECT COALESCE(
  (SELECT run_id FROM anchors WHERE anchor = @anchor),
  (SELECT a.run_id FROM settings AS s JOIN anchors AS a ON a.anchor = s.value WHERE s.name = @alias)) AS run_id`;

/**
 * `anchor_runs` is the history (one row per anchor and run, first link kept); `anchors` holds the
 * current run of each anchor.
 */
export class SqliteAnchorRepository implements AnchorRepository {
  private readonly addHistory;
  private readonly setCurrent;
  private readonly current;
  private readonly currentVia;
  private readonly historyRows;
  private readonly anchorRow;

  constructor(private readonly db: Database.Database) {
    this.addHistory = db.prepare<{ anchor: string; runId: string; now: number }>(
      `INSERT INTO anchor_runs (anchor, run_id, linked_at) VALUES (@anchor, @runId, @now)
       ON CONFLICT (anchor, run_id) DO NOTHING`,
    );
    this.setCurrent = db.prepare<{ anchor: string; runId: string; now: number }>(
      `INSERT INTO anchors (anchor, run_id, updated_at) VALUES (@anchor, @runId, @now)
       ON CONFLICT (anchor) DO UPDATE SET run_id = excluded.run_id, updated_at = excluded.updated_at`,
    );
    this.current = db.prepare<[string], string>('SELECT run_id FROM anchors WHERE anchor = ?').pluck();
    this.currentVia = db.prepare<{ anchor: string; alias: string }, string | null>(CURRENT_RUN_VIA_SQL).pluck();
    this.historyRows = db.prepare<[string], { run_id: string; linked_at: number }>(
      'SELECT run_id, linked_at FROM anchor_runs WHERE anchor = ? ORDER BY linked_at, rowid',
    );
    this.anchorRow = db.prepare<[string], string>('SELECT anchor FROM anchor_runs WHERE run_id = ? ORDER BY linked_at, rowid LIMIT 1').pluck();
  }

  /** Links inside the caller's transaction. */
  linkWithin(anchor: string, runId: string, now: number): void {
    this.addHistory.run({ anchor, runId, now });
    this.setCurrent.run({ anchor, runId, now });
  }

  async link(anchor: string, runId: string, now: number): Promise<void> {
    inWriteTransaction(this.db, () => this.linkWithin(anchor, runId, now));
  }

  async currentRun(anchor: string): Promise<string | undefined> {
    return this.current.get(anchor);
  }

  async currentRunVia(anchor: string, aliasSetting: string): Promise<string | undefined> {
    return this.currentVia.get({ anchor, alias: aliasSetting }) ?? undefined;
  }

  async history(anchor: string): Promise<Array<{ runId: string; linkedAt: number }>> {
    return this.historyRows.all(anchor).map((row) => ({ runId: row.run_id, linkedAt: row.linked_at }));
  }

  async anchorOf(runId: string): Promise<string | undefined> {
    return this.anchorRow.get(runId);
  }
}
