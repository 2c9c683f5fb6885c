/**
 * `usage.reserveStart` on SQLite: one BEGIN IMMEDIATE transaction, which every
 * writer of the file — this process or another — takes in turn, reads whether the trigger already
 * holds a reservation, counts what each limited scope uses, and reserves when every limit has room.
 */
import type Database from 'better-sqlite3';
import type { LimitName, Limits } from '../core/limits/limits.js';
import type { ReservationOutcome, StartReservation } from '../core/ports/store.js';
import { inWriteTransaction } from './write-transaction.js';

interface Used {
  concurrent: number;
  per_day: number;
  credits: number;
}

/** What one scope (the column its runs are counted by) uses; reservations count while their trigger is worked. */
function usedSql(column: 'requester' | 'route_name'): string {
  const inFlight = `SELECT COUNT(*) FROM run_reservations r JOIN triggers g ON g.key = r.trigger_key
    WHERE r.${column} = @key AND r.trigger_key <> @triggerKey AND g.state IN ('pending', 'working')`;
  return `SELECT
    (SELECT COUNT(*) FROM tracked_runs WHERE ${column} = @key AND tracked = 1) + (${inFlight} AND r.reserved_at >= @recent) AS concurrent,
    (SELECT COUNT(*) FROM tracked_runs WHERE ${column} = @key AND created_at >= @dayStart) + (${inFlight} AND r.reserved_at >= @dayStart) AS per_day,
    (SELECT COALESCE(SUM(COALESCE(inference_cost, 0) + COALESCE(compute_cost, 0)), 0) FROM tracked_runs
      WHERE ${column} = @key AND created_at >= @monthStart) AS credits`;
}

/** The first limit of `limits` that `used` leaves no room under (0 = none), in the order the port names. */
export function fullLimit(
  limits: Limits,
  used: { concurrent: number; perDay: number; credits: number },
): { limit: LimitName; value: number; used: number } | undefined {
  if (limits.concurrent > 0 && used.concurrent >= limits.concurrent) return { limit: 'concurrent', value: limits.concurrent, used: used.concurrent };
  if (limits.perDay > 0 && used.perDay >= limits.perDay) return { limit: 'per_day', value: limits.perDay, used: used.perDay };
  if (limits.creditsPerMonth > 0 && used.credits >= limits.creditsPerMonth)
    return { limit: 'credits_per_month', value: limits.creditsPerMonth, used: Math.round(used.credits * 1e6) / 1e6 };
  return undefined;
}

/** Whether any of the limits is set. */
function limited(limits: Limits | undefined): limits is Limits {
  return limits !== undefined && (limits.concurrent > 0 || limits.perDay > 0 || limits.creditsPerMonth > 0);
}

export class SqliteReservations {
  private readonly held;
  private readonly usedBy;
  private readonly prune;
  private readonly insert;

  constructor(private readonly db: Database.Database) {
    this.held = db.prepare<[string], number>('SELECT 1 FROM run_reservations WHERE trigger_key = ?').pluck();
    this.usedBy = {
      person: db.prepare<Record<string, unknown>, Used>(usedSql('requester')),
      route: db.prepare<Record<string, unknown>, Used>(usedSql('route_name')),
    };
    this.prune = db.prepare<[number]>('DELETE FROM run_reservations WHERE reserved_at < ?');
    this.insert = db.prepare<[string, string | null, string, number]>(
      'INSERT INTO run_reservations (trigger_key, requester, route_name, reserved_at) VALUES (?, ?, ?, ?) ON CONFLICT (trigger_key) DO NOTHING',
    );
  }

  reserve(reservation: StartReservation): ReservationOutcome {
    return inWriteTransaction(this.db, (): ReservationOutcome => {
      const { triggerKey, person, route, now, dayStart, monthStart, recent } = reservation;
      if (this.held.get(triggerKey) !== undefined) return { reserved: true };
      const scopes = [
        { scope: 'person' as const, key: person?.id, limits: person?.limits },
        { scope: 'route' as const, key: route.name, limits: route.limits },
      ];
      for (const { scope, key, limits } of scopes) {
        if (key === undefined || !limited(limits)) continue;
        const used = this.usedBy[scope].get({ key, triggerKey, recent, dayStart, monthStart });
        const full = used && fullLimit(limits, { concurrent: used.concurrent, perDay: used.per_day, credits: used.credits });
        if (full) return { reserved: false, scope, ...full };
      }
      this.prune.run(recent);
      this.insert.run(triggerKey, person?.id ?? null, route.name, now);
      return { reserved: true };
    });
  }
}
