import type { Migration } from '../../migrations/migration.js';

/**
 * As SQLite's migration 13: the reservations a start makes under its limits, and the function that
 * makes one in ONE statement. On SQLite a BEGIN IMMEDIATE transaction serialises every writer; here
 * the function takes a transaction-scoped advisory lock per limited person and route (person first,
 * so two starts never wait on each other in a cycle), and only then counts: each statement of a
 * PL/pgSQL function reads a fresh snapshot under READ COMMITTED, so it sees every reservation and run
 * committed by whoever held the lock before. A plain INSERT … SELECT could not: its one snapshot is
 * taken before it waits for the lock. It answers the first limit that has no room (person before
 * route; concurrent, then per_day, then credits_per_month), or that the start is reserved (also when
 * this trigger already holds a reservation: a retry keeps its room).
 */
export const pgMigration0013: Migration = {
  id: 13,
  name: 'run-reservations',
  sql: `
CREATE TABLE run_reservations (
  trigger_key TEXT   COLLATE "C" NOT NULL PRIMARY KEY,
  requester   TEXT   COLLATE "C",
  route_name  TEXT   COLLATE "C" NOT NULL,
  reserved_at BIGINT NOT NULL
);
CREATE INDEX run_reservations_requester ON run_reservations (requester, reserved_at);
CREATE INDEX run_reservations_route_name ON run_reservations (route_name, reserved_at);
CREATE INDEX run_reservations_reserved_at ON run_reservations (reserved_at);

CREATE FUNCTION agent_bridge_used(p_column text, p_key text, p_trigger_key text, p_recent bigint, p_day_start bigint, p_month_start bigint,
                                  OUT concurrent bigint, OUT per_day bigint, OUT credits double precision)
LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE format(
    'SELECT (SELECT count(*) FROM tracked_runs WHERE %1$I = $1 AND tracked = 1)
          + (SELECT count(*) FROM run_reservations r JOIN triggers g ON g.key = r.trigger_key
             WHERE r.%1$I = $1 AND r.trigger_key <> $2 AND r.reserved_at >= $3 AND g.state IN (''pending'', ''working'')),
            (SELECT count(*) FROM tracked_runs WHERE %1$I = $1 AND created_at >= $4)
          + (SELECT count(*) FROM run_reservations r JOIN triggers g ON g.key = r.trigger_key
             WHERE r.%1$I = $1 AND r.trigger_key <> $2 AND r.reserved_at >= $4 AND g.state IN (''pending'', ''working'')),
            (SELECT COALESCE(sum(COALESCE(inference_cost, 0) + COALESCE(compute_cost, 0)), 0) FROM tracked_runs WHERE %1$I = $1 AND created_at >= $5)',
    p_column)
  INTO concurrent, per_day, credits
  USING p_key, p_trigger_key, p_recent, p_day_start, p_month_start;
END
$fn$;

CREATE FUNCTION agent_bridge_reserve_start(p_trigger_key text, p_requester text, p_route text, p_now bigint, p_recent bigint,
                                           p_day_start bigint, p_month_start bigint,
                                           p_person_limits double precision[], p_route_limits double precision[])
RETURNS TABLE (reserved boolean, scope text, limit_name text, limit_value double precision, used double precision)
LANGUAGE plpgsql AS $fn$
DECLARE
  scopes text[] := ARRAY['person', 'route'];
  columns text[] := ARRAY['requester', 'route_name'];
  keys text[] := ARRAY[p_requester, p_route];
  limits double precision[][] := ARRAY[COALESCE(p_person_limits, ARRAY[0, 0, 0]::double precision[]), COALESCE(p_route_limits, ARRAY[0, 0, 0]::double precision[])];
  names text[] := ARRAY['concurrent', 'per_day', 'credits_per_month'];
  figures double precision[];
  found_used record;
BEGIN
  IF EXISTS (SELECT 1 FROM run_reservations WHERE trigger_key = p_trigger_key) THEN
    RETURN QUERY SELECT true, NULL::text, NULL::text, NULL::double precision, NULL::double precision;
    RETURN;
  END IF;
  FOR i IN 1..2 LOOP
    IF keys[i] IS NOT NULL AND (limits[i][1] > 0 OR limits[i][2] > 0 OR limits[i][3] > 0) THEN
      PERFORM pg_advisory_xact_lock(hashtextextended('agent-bridge:limits:' || scopes[i] || ':' || keys[i], 0));
    END IF;
  END LOOP;
  FOR i IN 1..2 LOOP
    IF keys[i] IS NOT NULL AND (limits[i][1] > 0 OR limits[i][2] > 0 OR limits[i][3] > 0) THEN
      SELECT * INTO found_used FROM agent_bridge_used(columns[i], keys[i], p_trigger_key, p_recent, p_day_start, p_month_start);
      figures := ARRAY[found_used.concurrent::double precision, found_used.per_day::double precision, found_used.credits];
      FOR j IN 1..3 LOOP
        IF limits[i][j] > 0 AND figures[j] >= limits[i][j] THEN
          RETURN QUERY SELECT false, scopes[i], names[j], limits[i][j], figures[j];
          RETURN;
        END IF;
      END LOOP;
    END IF;
  END LOOP;
  DELETE FROM run_reservations WHERE reserved_at < p_recent;
  INSERT INTO run_reservations (trigger_key, requester, route_name, reserved_at) VALUES (p_trigger_key, p_requester, p_route, p_now)
  ON CONFLICT (trigger_key) DO NOTHING;
  RETURN QUERY SELECT true, NULL::text, NULL::text, NULL::double precision, NULL::double precision;
END
$fn$;
`,
};
