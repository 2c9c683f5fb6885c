/**
 * Tracker cost at 10,000 tracked runs on PostgreSQL, beside the same bench on SQLite in
 * the same run: the real Tracker, the HTTP client and the emulator in this process as in
 * bench/tracker-cost.ts, the store on a fresh database of the bench's PostgreSQL server. CPU per tick
 * is this process's, plus (separately) that of the server processes serving the store's connections.
 */
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { openPostgresStore } from '../src/store/postgres/postgres-store.js';
import { phase } from './bench-options.js';
import { benchPostgres } from './replicas.js';
import { median, type Figure, type Section } from './report.js';
import { CPU_TARGET_MS, MEASURED_TICKS, PAGE_SIZE, scale, type ScaleResult, type TrackerDatabase } from './tracker-cost.js';

const SECTION = 'Tracker cost on PostgreSQL';
/** Clock ticks per second of /proc (USER_HZ). */
const HZ = 100;

/** CPU (user + system) the database's backends have used, from /proc (the server runs on this machine). */
async function backendsCpuMs(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  let ticks = 0;
  for (const { pid } of rows) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Gone since the query: its time is lost to this figure (rare; the pool keeps its connections).
    }
  }
  return (ticks * 1000) / HZ;
}

async function postgresDatabase(): Promise<TrackerDatabase> {
  const url = await (await benchPostgres()).createDatabase();
  const store = await openPostgresStore({ url });
  return { store, serverCpuMs: () => backendsCpuMs(store.pool) };
}

const medianOf = (result: ScaleResult, pick: (tick: ScaleResult['ticks'][number]) => number) => median(result.ticks.map(pick));

export async function trackerCostPostgres(): Promise<Section> {
  const tracked = phase(10_000, 2_000);
  const sqlite = await scale(tracked, undefined, false);
  const postgres = await scale(tracked, postgresDatabase, false);
  const label = `${tracked.toLocaleString('en-US')} runs`;
  const bound = 1 + Math.ceil(postgres.changedPerTick / PAGE_SIZE);
  const requests = medianOf(postgres, (t) => t.http);
  const cpuMs = medianOf(postgres, (t) => t.cpuMs);
  const serverMs = medianOf(postgres, (t) => t.dbCpuMs);
  const both = medianOf(postgres, (t) => t.cpuMs + t.dbCpuMs);
  const onSqlite = { label: 'same bench on SQLite', value: 0 };
  const figures: Figure[] = [
    {
      section: SECTION,
      name: `${label}: requests/tick`,
      value: requests,
      unit: '',
      baseline: { ...onSqlite, value: medianOf(sqlite, (t) => t.http) },
      target: { text: `≤ 1 + ⌈changed/page_size⌉ = ${bound}`, met: requests <= bound },
    },
    {
      section: SECTION,
      name: `${label}: CPU/tick, this process`,
      value: cpuMs,
      unit: 'ms',
      baseline: { ...onSqlite, value: medianOf(sqlite, (t) => t.cpuMs) },
    },
    { section: SECTION, name: `${label}: CPU/tick, PostgreSQL's backends`, value: serverMs, unit: 'ms' },
    {
      section: SECTION,
      name: `${label}: CPU/tick, both`,
      value: both,
      unit: 'ms',
      baseline: { ...onSqlite, value: medianOf(sqlite, (t) => t.cpuMs) },
      target: { text: `< ${CPU_TARGET_MS} ms`, met: both < CPU_TARGET_MS },
    },
    {
      section: SECTION,
      name: `${label}: wall time/tick`,
      value: medianOf(postgres, (t) => t.wallMs),
      unit: 'ms',
      baseline: { ...onSqlite, value: medianOf(sqlite, (t) => t.wallMs) },
    },
  ];
  const describe = (name: string, result: ScaleResult) =>
    `${name}: ${result.changedPerTick} changed per tick; ramp-up ${result.rampTicks} ticks, ${result.rampRequests} requests (at most ${result.rampMaxRequests} in one); ${result.warmupTicks} warm-up ticks; measured ticks: requests ${result.ticks.map((t) => t.http).join(', ')}, CPU ${result.ticks.map((t) => t.cpuMs.toFixed(1)).join(', ')} ms` +
    (result.ticks.some((t) => t.dbCpuMs > 0) ? `, PostgreSQL backends ${result.ticks.map((t) => t.dbCpuMs.toFixed(0)).join(', ')} ms` : '') +
    '.';
  return {
    title: SECTION,
    figures,
    notes: [
      `As the Tracker cost section (page_size ${PAGE_SIZE}, 1% of the runs change per tick, median of ${MEASURED_TICKS} ticks after warm-up), with the store on a fresh PostgreSQL database of the bench's server (a pool of 10 connections over loopback), and the same bench on SQLite in memory as the baseline.`,
      `CPU: this process (tracker, HTTP client, pg driver, the in-process emulator) from process.cpuUsage(); PostgreSQL's from /proc/<pid>/stat of the backends serving this database (pg_stat_activity), in 10 ms clock ticks, so one tick's figure is coarse; the target is held to the sum.`,
      describe('PostgreSQL', postgres),
      describe('SQLite', sqlite),
    ],
  };
}
