import type pg from 'pg';
import type { AnchorRepository } from '../../core/ports/store.js';
import { CURRENT_RUN_VIA_SQL } from '../anchor-repository.js';
import { rows, row, run } from './pg-sql.js';

const LINK_SQL = `
WITH history AS (
  INSERT INTO anchor_runs (anchor, run_id, linked_at) VALUES (@anchor::text, @runId::text, @now::bigint)
  ON CONFLICT (anchor, run_id) DO NOTHING
)
INSERT INTO anchors (anchor, run_id, updated_at) VALUES (@anchor::text, @runId::text, @now::bigint)
ON CONFLICT (anchor) DO UPDATE SET run_id = excluded.run_id, updated_at = excluded.updated_at`;

/**
 * As on SQLite: `anchor_runs` is the history (one row per anchor and run, first link kept; `seq` orders
 * links of one millisecond as SQLite's rowid does), `anchors` holds the current run of each anchor.
 */
export class PostgresAnchorRepository implements AnchorRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** The history row and the current run in ONE statement: atomic without BEGIN and COMMIT, one round trip instead of four. */
  async link(anchor: string, runId: string, now: number): Promise<void> {
    await run(this.pool, LINK_SQL, { anchor, runId, now });
  }

  async currentRun(anchor: string): Promise<string | undefined> {
    return (await row<{ run_id: string }>(this.pool, 'SELECT run_id FROM anchors WHERE anchor = @anchor', { anchor }))?.run_id;
  }

  async currentRunVia(anchor: string, aliasSetting: string): Promise<string | undefined> {
    return (await row<{ run_id: string | null }>(this.pool, CURRENT_RUN_VIA_SQL, { anchor, alias: aliasSetting }))?.run_id ?? undefined;
  }

  async history(anchor: string): Promise<Array<{ runId: string; linkedAt: number }>> {
    const found = await rows<{ run_id: string; linked_at: number }>(
      this.pool,
      'SELECT run_id, linked_at FROM anchor_runs WHERE anchor = @anchor ORDER BY linked_at, seq',
      { anchor },
    );
    return found.map((item) => ({ runId: item.run_id, linkedAt: item.linked_at }));
  }

  async anchorOf(runId: string): Promise<string | undefined> {
    const found = await row<{ anchor: string }>(this.pool, 'SELECT anchor FROM anchor_runs WHERE run_id = @runId ORDER BY linked_at, seq LIMIT 1', { runId });
    return found?.anchor;
  }
}
