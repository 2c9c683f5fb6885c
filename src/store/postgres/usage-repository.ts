import type pg from 'pg';
import type { LimitName, Limits } from '../../core/limits/limits.js';
import type { ReservationOutcome, StartReservation, UsageGrouping, UsageRepository, UsageSum, UsageTotal } from '../../core/ports/store.js';
import { TOTALS_SQL, byDayThenKey, sumsSql, toUsageSum, toUsageTotal, type UsageSumRow, type UsageTotalRow } from '../usage-repository.js';
import { row, rows } from './pg-sql.js';

/** Limits as the function takes them: [concurrent, per_day, credits_per_month]; null = none. */
function limitArray(limits: Limits | undefined): number[] | null {
  return limits ? [limits.concurrent, limits.perDay, limits.creditsPerMonth] : null;
}

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

  /** One statement: the function migration 13 creates locks, counts and reserves (see there why it is a function). */
  async reserveStart(reservation: StartReservation): Promise<ReservationOutcome> {
    const found = await row<{
      reserved: boolean;
      scope: 'person' | 'route' | null;
      limit_name: LimitName | null;
      limit_value: number | null;
      used: number | null;
    }>(
      this.pool,
      `SELECT * FROM agent_bridge_reserve_start(@triggerKey::text, @requester::text, @route::text, @now::bigint, @recent::bigint,
                                                @dayStart::bigint, @monthStart::bigint, @personLimits::double precision[], @routeLimits::double precision[])`,
      {
        triggerKey: reservation.triggerKey,
        requester: reservation.person?.id ?? null,
        route: reservation.route.name,
        now: reservation.now,
        recent: reservation.recent,
        dayStart: reservation.dayStart,
        monthStart: reservation.monthStart,
        personLimits: limitArray(reservation.person?.limits),
        routeLimits: limitArray(reservation.route.limits),
      },
    );
    if (!found) throw new Error('agent_bridge_reserve_start answered no row');
    if (found.reserved) return { reserved: true };
    return {
      reserved: false,
      scope: found.scope ?? 'route',
      limit: found.limit_name as LimitName,
      value: Number(found.limit_value),
      used: Math.round(Number(found.used) * 1e6) / 1e6,
    };
  }

  async totals(): Promise<UsageTotal[]> {
    return (await rows<UsageTotalRow & pg.QueryResultRow>(this.pool, TOTALS_SQL)).map(toUsageTotal);
  }
}
