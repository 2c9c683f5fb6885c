import type pg from 'pg';
import type { UsageGrouping, UsageRepository, UsageSum, UsageTotal } from '../../core/ports/store.js';
import { TOTALS_SQL, byDayThenKey, sumsSql, toUsageSum, toUsageTotal, type UsageSumRow, type UsageTotalRow } from '../usage-repository.js';
import { rows } from './pg-sql.js';

export class PostgresUsageRepository implements UsageRepository {
  constructor(private readonly pool: pg.Pool) {}

  async sums(query: { by: UsageGrouping; since: number; person?: string }): Promise<UsageSum[]> {
    const forPerson = query.person !== undefined;
    const found = await rows<UsageSumRow & pg.QueryResultRow>(
      this.pool,
      sumsSql(query.by, forPerson, (type) => `::${type}`),
      {
        since: query.since,
        ...(forPerson && { person: query.person }),
      },
    );
    return found.map(toUsageSum).sort(byDayThenKey);
  }

  async totals(): Promise<UsageTotal[]> {
    return (await rows<UsageTotalRow & pg.QueryResultRow>(this.pool, TOTALS_SQL)).map(toUsageTotal);
  }
}
