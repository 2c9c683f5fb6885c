/**
 * A child process for the multi-process store tests (src/store/multi-process.test.ts). Run as
 * `node --import tsx test/store/race-child.ts <mode> <dbPath> <worker> [rounds]`. It opens the store
 * (mode `open`: only that), prints `ready`, waits for `go <epoch ms>` on stdin so that all children start
 * at that moment and run each round in step, races the others and prints one JSON line with what it won.
 */
import { createInterface } from 'node:readline';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';

export interface RaceReport {
  worker: string;
  eventKeys: number[];
  leases: number[];
  slots: number[];
  triggers: number[];
  outbox: number[];
  /** Rounds whose last slot under a limit this child reserved (mode `reserve`). */
  reserved?: number[];
  /** Things that must never happen (an owner losing a lease it held, an order violation). */
  violations: string[];
}

const [mode, dbPath, worker = 'w', roundsArg = '100'] = process.argv.slice(2);
if (!dbPath || (mode !== 'open' && mode !== 'race' && mode !== 'reserve')) {
  process.stderr.write('usage: race-child.ts open|race|reserve <dbPath> <worker> [rounds]\n');
  process.exit(2);
}

const LEASE_MS = 60_000;
const lines = createInterface({ input: process.stdin });
/** The parent answers `go <epoch ms>`: round r starts at that time + r * ROUND_MS in every child. */
const go = new Promise<number>((resolve) => lines.once('line', (line) => resolve(Number(line.split(' ')[1]) || Date.now())));
const ROUND_MS = 4;

/** Waits until `at` (spinning for the last milliseconds, so that all children start a round together). */
async function until(at: number): Promise<void> {
  while (at - Date.now() > 2) await new Promise((resolve) => setTimeout(resolve, 1));
  while (Date.now() < at) {
    /* spin */
  }
}

async function race(store: SqliteStore, rounds: number, startAt: number): Promise<RaceReport> {
  const report: RaceReport = { worker, eventKeys: [], leases: [], slots: [], triggers: [], outbox: [], violations: [] };
  const earlierUnfinished = store.db
    .prepare<[string, number], number>("SELECT COUNT(*) FROM triggers WHERE anchor = ? AND id < ? AND state IN ('pending', 'working')")
    .pluck();
  const earlierUnsent = store.db
    .prepare<[string, number], number>("SELECT COUNT(*) FROM outbox WHERE destination = ? AND id < ? AND state IN ('pending', 'sending')")
    .pluck();

  const claimTrigger = async (now: number): Promise<boolean> => {
    const trigger = await store.triggers.claimNext(worker, now, LEASE_MS);
    if (!trigger) return false;
    report.triggers.push(trigger.id);
    if ((earlierUnfinished.get(trigger.anchor, trigger.id) ?? 0) > 0) report.violations.push(`trigger ${trigger.id} claimed out of anchor order`);
    const runId = `run-${trigger.id}`;
    const finished = await store.triggers.finish(trigger.id, worker, { state: 'done', runId }, { link: { anchor: trigger.anchor, runId } }, now);
    if (!finished) report.violations.push(`trigger ${trigger.id}: lease lost`);
    return true;
  };

  const claimOutbox = async (now: number): Promise<boolean> => {
    const row = await store.outbox.claimNext(worker, now, LEASE_MS);
    if (!row) return false;
    report.outbox.push(row.id);
    if ((earlierUnsent.get(row.destination, row.id) ?? 0) > 0) report.violations.push(`outbox ${row.id} claimed out of destination order`);
    if (!(await store.outbox.markSent(row.id, worker, { by: worker }, now))) report.violations.push(`outbox ${row.id}: lease lost`);
    return true;
  };

  for (let round = 0; round < rounds; round++) {
    await until(startAt + round * ROUND_MS);
    const now = Date.now();
    if (await store.eventKeys.remember(`event-${round}`, now)) report.eventKeys.push(round);
    if (await store.leases.acquire(`lease-${round}`, worker, now, LEASE_MS)) report.leases.push(round);
    if (await store.scheduleFires.record({ schedule: 'race', slot: `slot-${round}`, firedAt: now, status: 'recorded' })) report.slots.push(round);
    await claimTrigger(now);
    await claimOutbox(now);
  }

  // Drain what is left; an outbox row may wait for another child to send its destination's earlier row.
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const now = Date.now();
    const progressed = (await claimTrigger(now)) || (await claimOutbox(now));
    if (progressed) continue;
    const triggers = await store.triggers.countByState();
    const outbox = await store.outbox.counts();
    if (triggers.pending + triggers.working + outbox.pending + outbox.sending === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return report;
}

/**
 * Mode `reserve`: in each round every child reserves a start of its own trigger (`res-<round>-<worker>`,
 * stored by the parent) on the route `route-<round>`, which has room for one run at once.
 */
async function reserveRace(store: SqliteStore, rounds: number, startAt: number): Promise<RaceReport> {
  const report: RaceReport = { worker, eventKeys: [], leases: [], slots: [], triggers: [], outbox: [], reserved: [], violations: [] };
  const limits = { concurrent: 1, perDay: 0, creditsPerMonth: 0 };
  for (let round = 0; round < rounds; round++) {
    await until(startAt + round * ROUND_MS);
    const now = Date.now();
    const outcome = await store.usage.reserveStart({
      triggerKey: `res-${round}-${worker}`,
      route: { name: `route-${round}`, limits },
      now,
      dayStart: now - (now % 86_400_000),
      monthStart: 0,
      recent: now - 86_400_000,
    });
    if (outcome.reserved) report.reserved?.push(round);
    else if (outcome.limit !== 'concurrent' || outcome.used !== 1) report.violations.push(`round ${round}: refused as ${JSON.stringify(outcome)}`);
  }
  return report;
}

process.stdout.write('ready\n');
const startAt = await go;
await until(startAt);
const store = openSqliteStore({ path: dbPath, now: () => Number(worker.replace(/\D/g, '') || 0) });
let report: RaceReport | { worker: string; opened: true } = { worker, opened: true };
if (mode === 'race') report = await race(store, Number(roundsArg), startAt);
if (mode === 'reserve') report = await reserveRace(store, Number(roundsArg), startAt);
await store.close();
process.stdout.write(`${JSON.stringify(report)}\n`);
lines.close();
