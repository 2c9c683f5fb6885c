import { loopReservations } from '../core/hand-over/loop-reservations.js';
import type { FreeWorkerSource, RowTaker, TriggerTaker } from '../core/hand-over/hand-over.js';
import type { IntakeWorker } from '../core/intake/intake-worker.js';
import type { Liveness } from '../core/liveness/liveness.js';
import { startLoop, type RunningLoop } from '../core/loop.js';
import type { OutboxWorker } from '../core/outbox/outbox-worker.js';
import type { Clock } from '../core/ports/clock.js';
import type { Logger } from '../core/ports/logger.js';
import type { WorkGate } from '../core/ports/work-gate.js';
import type { Store } from '../core/ports/store.js';
import type { Scheduler } from '../core/schedules/scheduler.js';
import type { Tracker } from '../core/tracker/tracker.js';

const HOUR = 3_600_000;
/** How long a stopped or dead process stays listed in the database (diagnostics). */
const PROCESS_RETENTION_MS = 7 * 24 * HOUR;
/** How often held requests are checked for expiry. */
const APPROVAL_SWEEP_MS = 60_000;

/**
 * How often a process looks for work no wake-up told it of (a retry falling due, what another replica
 * left): one claim per interval for the triggers and one for the outbox, however many workers it runs.
 */
export const POLL_MS = { intake: 1_000, outbox: 500 } as const;

export interface WorkLoopParts {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Several, each with its own owner: triggers of different anchors are worked at once. */
  intake: IntakeWorker[];
  tracker: Tracker;
  scheduler: Scheduler;
  outbox: OutboxWorker[];
  liveness: Liveness;
  intervals: { trackerMs: number; dedupeRetentionMs: number; auditRetentionMs: number };
  /** Requests held for approval: expired (and interrupted approvals started) by a sweep every minute. */
  approvals?: { sweep(): Promise<number> };
  /** Makes intake, outbox and tracker passes wait while webhooks are being acknowledged (absent: they never wait). */
  gate?: WorkGate;
}

export interface WorkLoops {
  /** A trigger was stored: work it, and deliver the "received" messages it owes at once. */
  wakeIntake(): void;
  /** Messages are owed. */
  wakeOutbox(): void;
  /**
   * The loops' free workers, each reserved for one thing being stored (core/hand-over/): an intake
   * worker for a trigger, an outbox worker for the first message owed with it; none while stopping.
   */
  readonly freeWorkers: FreeWorkerSource;
  /** Stops every loop after its pass in flight, then stops beating and gives up the tracker lease. */
  stop(): Promise<void>;
}

/**
 * The background work of one process: the intake workers, the outbox workers, the tracker tick, the
 * schedules' upkeep, housekeeping and the heartbeat, each in a loop that never dies (errors are logged)
 * and never overlaps itself.
 *
 * Intake and the outbox each run several loops woken in a chain (below). A trigger or a delivery is
 * mostly waiting for an HTTP answer, so under a flood of requests one loop would advance by one step
 * per turn of the event loop, behind every request of that turn: work would starve. As many chains as
 * there is work each advance at once, so work keeps pace while the process acknowledges.
 *
 * The loops are also woken by the store's change notifications (`Store.onChange`), except for what
 * another replica stored: that replica works it.
 */
export function startWorkLoops(parts: WorkLoopParts): WorkLoops {
  const { store, clock, logger, intervals } = parts;
  const gate = parts.gate && { gate: parts.gate };

  let stopping = false;
  const outbox = startOutboxChain(parts, gate, () => stopping);
  const wakeOutbox = outbox.wake;
  const intake = startIntakeChain(parts, gate, wakeOutbox, () => stopping);
  const wakeIntake = intake.wake;
  const intakeLoops = intake.loops;
  const outboxLoops = outbox.loops;

  // Work that runs once per interval whatever it finds (it never asks to go again at once).
  const every = (name: string, idleMs: number, tick: () => Promise<void>, gated?: { gate: WorkGate }) =>
    startLoop({ name, clock, logger, idleMs, ...gated, work: () => tick().then(() => false) });
  const trackerLoop = every(
    'tracker',
    intervals.trackerMs,
    async () => {
      const report = await parts.tracker.tick();
      if (report.changed > 0) wakeOutbox();
    },
    gate,
  );
  // Catches fires whose process died mid-way and says a pause soon after the failure that caused it.
  const scheduleLoop = every('schedules', intervals.trackerMs, () => parts.scheduler.check());
  const housekeeping = every('housekeeping', HOUR, async () => {
    const pruned = await store.eventKeys.prune(clock.now() - intervals.dedupeRetentionMs);
    if (pruned > 0) logger.info({ pruned }, 'pruned processed event keys');
    await store.processes.prune(clock.now() - PROCESS_RETENTION_MS);
    // audit.retention: one statement, however many entries it deletes.
    const expired = await store.audit.prune(clock.now() - intervals.auditRetentionMs);
    if (expired > 0) logger.info({ deleted: expired }, 'deleted audit entries older than audit.retention');
  });
  // Held requests whose time ran out: the requester is told (a minute late at most).
  const approvalsLoop = parts.approvals && every('approvals', APPROVAL_SWEEP_MS, async () => void (await parts.approvals?.sweep()));
  // A process found dead left work that is free now: go for it rather than wait for the next pass.
  const livenessLoop = every('liveness', parts.liveness.beatMs, async () => {
    if ((await parts.liveness.beat()).length === 0) return;
    for (const loop of [trackerLoop, scheduleLoop]) loop.wake();
    wakeIntake();
    wakeOutbox();
  });

  // What other processes store (PostgreSQL's LISTEN/NOTIFY). Another replica's change is left to that
  // replica: it was told of its own change and works it, so waking here too would cost one claim that
  // finds nothing per replica and change; whatever it leaves, our polls find. Ours, a command line's,
  // or a look after the listening connection was lost wake us as before. docs/postgresql.md
  // "Wake-ups between replicas".
  const unsubscribe = store.onChange?.((change, origin) => {
    if (origin === 'replica') return;
    if (change === 'triggers') wakeIntake();
    wakeOutbox();
  });

  const workLoops = [...intakeLoops, trackerLoop, scheduleLoop, housekeeping, ...(approvalsLoop ? [approvalsLoop] : []), ...outboxLoops];
  return {
    wakeIntake: () => {
      wakeIntake();
      wakeOutbox();
    },
    wakeOutbox,
    freeWorkers: { intake: intake.reserve, outbox: outbox.reserve },
    stop: async () => {
      // From now on this process takes no new work: what its last passes store wakes the others.
      stopping = true;
      unsubscribe?.();
      await Promise.all(workLoops.map((loop) => loop.stop()));
      // What was handed over and never worked goes back to pending: another process takes it at once.
      await Promise.all([...parts.intake, ...parts.outbox].map((worker) => worker.letGo()));
      // Beating until the work in flight is finished, so nobody takes it over meanwhile.
      await livenessLoop.stop();
      // Let another process tick right away instead of waiting out our lease.
      await parts.tracker.release();
    },
  };
}

type Gated = { gate: WorkGate } | undefined;

/**
 * A wake starts one outbox loop; a loop that claims a row wakes the next before delivering it, so
 * as many deliver at once as there are rows owed (up to the number of workers), and an empty outbox
 * costs one claim. Only the first loop polls: a poll that finds a row starts the chain like a wake,
 * and sixteen loops polling each would cost sixteen claims per interval for nothing.
 */
function startOutboxChain(
  parts: WorkLoopParts,
  gate: Gated,
  stopping: () => boolean,
): { loops: RunningLoop[]; wake: () => void; reserve: () => RowTaker | undefined } {
  const loops: RunningLoop[] = parts.outbox.map((worker, index) =>
    startLoop({
      name: `outbox-${index}`,
      clock: parts.clock,
      logger: parts.logger,
      idleMs: POLL_MS.outbox,
      poll: index === 0,
      ...gate,
      work: () => worker.deliverNext(() => wakeFree(loops, index + 1, reservations.free)),
    }),
  );
  const reservations = loopReservations(loops, parts.outbox, { stopping, logger: parts.logger });
  return { loops, wake: () => wakeFree(loops, 0, reservations.free), reserve: reservations.reserve };
}

/**
 * The same chain for intake: a trigger claimed wakes the next loop, an empty inbox costs one claim,
 * and only the first loop polls. The store hands out one anchor's triggers one at a time and in
 * order, whichever loop asks. A loop that worked a trigger goes again at once when its claim saw
 * another due, or when something was stored meanwhile: a later trigger of the same thread, stored
 * while this one was worked, is claimable only now that it is done (its own wake-up found nothing).
 */
function startIntakeChain(
  parts: WorkLoopParts,
  gate: Gated,
  wakeOutbox: () => void,
  stopping: () => boolean,
): { loops: RunningLoop[]; wake: () => void; reserve: () => TriggerTaker | undefined } {
  let wakes = 0;
  const loops: RunningLoop[] = parts.intake.map((worker, index) =>
    startLoop({
      name: `intake-${index}`,
      clock: parts.clock,
      logger: parts.logger,
      idleMs: POLL_MS.intake,
      poll: index === 0,
      ...gate,
      work: async () => {
        const wakesBefore = wakes;
        const worked = await worker.workOnce(() => wakeFree(loops, index + 1, reservations.free));
        if (worked) wakeOutbox();
        return worked && (worker.sawMoreDue || wakes !== wakesBefore);
      },
    }),
  );
  const reservations = loopReservations(loops, parts.intake, { stopping, logger: parts.logger });
  return {
    loops,
    wake: () => {
      wakes++;
      wakeFree(loops, 0, reservations.free);
    },
    reserve: reservations.reserve,
  };
}

/**
 * Wakes the first of `loops` from `from` on (round the end) with no pass in flight, or `from` itself
 * when all are busy (it goes again after its pass). A wake that waited behind a slow pass (a run-API
 * call) would otherwise wait for it, now that only the first loop of a chain polls.
 */
function wakeFree(loops: readonly RunningLoop[], from: number, free: (index: number) => boolean): void {
  for (let step = 0; step < loops.length; step++) {
    const index = (from + step) % loops.length;
    if (free(index)) return (loops[index] as RunningLoop).wake();
  }
  loops[from % loops.length]?.wake();
}
