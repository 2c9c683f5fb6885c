/**
 * Options of the PostgreSQL and flood sections: `npm run bench -- postgres --quick` (or BENCH_QUICK=1)
 * runs them with short phases, for a first look on a busy machine; the documented figures come from
 * full runs. BENCH_PG_SYNCHRONOUS_COMMIT=off gives PostgreSQL SQLite's durability (see replicas.ts).
 */
export const quick = (): boolean => process.env['BENCH_QUICK'] === '1';

/** `full` normally, `short` in quick mode. */
export const phase = <T>(full: T, short: T): T => (quick() ? short : full);
