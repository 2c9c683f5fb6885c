import type Database from 'better-sqlite3';
import type { ReservationOutcome, StartReservation, UsageGrouping, UsageRepository, UsageSum, UsageTotal } from '../core/ports/store.js';
import { SqliteReservations } from './reservations.js';

const DAY_MS = 86_400_000;

/** The column each grouping sums by (fixed names, never text from a caller). */
export const GROUP_COLUMNS: Record<UsageGrouping, string> = { person: 'requester', route: 'route_name', source: 'source' };

/** A row of the sums statement, as both engines return it (PostgreSQL's sums may come as strings). */
export interface UsageSumRow {
  key: string | null;
  day: number | string;
  runs: number | string;
  inference: number | string | null;
  compute: number | string | null;
}

export interface UsageTotalRow {
  source: string;
  runs: number | string;
  inference: number | string | null;
  compute: number | string | null;
}

/** Sums of floating-point figures, rounded to a millionth so 0.1 + 0.2 reads 0.3. */
export function credits(value: number | string | null): number {
  return Math.round(Number(value ?? 0) * 1e6) / 1e6;
}

/** A row as the port's sum; days counted from the epoch become `YYYY-MM-DD`. */
export function toUsageSum(row: UsageSumRow): UsageSum {
  return {
    key: row.key,
    day: new Date(Number(row.day) * DAY_MS).toISOString().slice(0, 10),
    runs: Number(row.runs),
    inferenceCost: credits(row.inference),
    computeCost: credits(row.compute),
  };
}

export function toUsageTotal(row: UsageTotalRow): UsageTotal {
  return { source: row.source, runs: Number(row.runs), inferenceCost: credits(row.inference), computeCost: credits(row.compute) };
}

/** Day, then key with null last: the same order on both engines (their NULL ordering differs). */
export function byDayThenKey(a: UsageSum, b: UsageSum): number {
  if (a.day !== b.day) return a.day < b.day ? -1 : 1;
  if (a.key === b.key) return 0;
  if (a.key === null) return 1;
  if (b.key === null) return -1;
  return a.key < b.key ? -1 : 1;
}

/** The sums statement for a grouping; `person` filters by who asked (both engines: @name parameters). */
export function sumsSql(by: UsageGrouping, forPerson: boolean, cast: (type: string) => string = () => ''): string {
  return `SELECT ${GROUP_COLUMNS[by]} AS key, created_at / ${DAY_MS} AS day, COUNT(*) AS runs,
            SUM(inference_cost) AS inference, SUM(compute_cost) AS compute
     FROM tracked_runs
     WHERE created_at >= @since${cast('bigint')}${forPerson ? ` AND requester = @person${cast('text')}` : ''}
     GROUP BY ${GROUP_COLUMNS[by]}, created_at / ${DAY_MS}`;
}

export const TOTALS_SQL = `SELECT source, COUNT(*) AS runs, SUM(inference_cost) AS inference, SUM(compute_cost) AS compute
  FROM tracked_runs GROUP BY source ORDER BY source`;

export class SqliteUsageRepository implements UsageRepository {
  private readonly sumStatements = new Map<string, Database.Statement<Record<string, unknown>, UsageSumRow>>();
  private readonly totalsStatement;
  private readonly reservations;

  constructor(private readonly db: Database.Database) {
    this.totalsStatement = db.prepare<[], UsageTotalRow>(TOTALS_SQL);
    this.reservations = new SqliteReservations(db);
  }

  async reserveStart(reservation: StartReservation): Promise<ReservationOutcome> {
    return this.reservations.reserve(reservation);
  }

  async sums(query: { by: UsageGrouping; since: number; person?: string }): Promise<UsageSum[]> {
    const forPerson = query.person !== undefined;
    const name = `${query.by}:${forPerson}`;
    let statement = this.sumStatements.get(name);
    if (!statement) {
      statement = this.db.prepare<Record<string, unknown>, UsageSumRow>(sumsSql(query.by, forPerson));
      this.sumStatements.set(name, statement);
    }
    const found = statement.all({ since: query.since, ...(forPerson && { person: query.person }) });
    return found.map(toUsageSum).sort(byDayThenKey);
  }

  async totals(): Promise<UsageTotal[]> {
    return this.totalsStatement.all().map(toUsageTotal);
  }
}
