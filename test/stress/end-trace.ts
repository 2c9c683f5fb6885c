/**
 * Where a mention's end is, when its thread never showed it: read from the service's own
 * books while the pool still runs, beside what the run API and the fake Slack API hold. For every
 * unsettled mention one line says how far the end got — the run's state in the run API, what the
 * tracker recorded (state, transition, still tracked, last seen), the watermark, and each outbox row
 * owed to the thread (pending, claimed by whom until when, sent, failed) — so a failure tells a lost
 * announcement from a late one.
 */
import { TRACKER_WATERMARK } from '../../src/core/ports/setting-names.js';
import type { Store } from '../../src/core/ports/store.js';
import type { OutboxRow } from '../../src/core/ports/store-records.js';
import type { EmulatorRunView } from './crash-burst-checks.js';

/** A mention as the trace needs it. */
export interface TracedMention {
  index: number;
  outcome: string;
  key: string;
  destination: string;
  reference: string;
}

const clock = (ms: number | null | undefined, now: number) => (ms === null || ms === undefined ? '-' : `${((ms - now) / 1000).toFixed(1)}s`);

function rowLine(row: OutboxRow, now: number): string {
  const kind = row.key.slice(row.key.lastIndexOf(':') + 1);
  const transition = /:(\d+):/.exec(row.key)?.[1] ?? '?';
  const holder = row.leaseOwner === null ? '' : ` by ${row.leaseOwner} until ${clock(row.leaseUntil, now)}`;
  const error = row.lastError === null ? '' : ` last error "${row.lastError.slice(0, 80)}"`;
  const when = row.sentAt === null ? ` due ${clock(row.nextAttemptAt, now)}` : ` sent ${clock(row.sentAt, now)}`;
  return `#${row.id} t${transition} ${kind} ${row.state} x${row.attempts}${holder}${when}${error}`;
}

/**
 * One line per mention: where its end is. `runs` are the run API's runs by reference line; `now` is
 * the moment the lines are relative to (negative seconds are in the past).
 */
export async function traceEnds(
  store: Store,
  mentions: readonly TracedMention[],
  runs: ReadonlyMap<string, readonly EmulatorRunView[]>,
  now: number,
): Promise<string[]> {
  const watermark = (await store.settings.get(TRACKER_WATERMARK)) ?? '(none)';
  const processes = await store.processes.list(20);
  const lines = [
    `tracker watermark ${watermark}; processes: ${processes
      .map((p) => `${p.id} ${p.stoppedAt === null ? `alive until ${clock(p.aliveUntil, now)}` : `stopped ${clock(p.stoppedAt, now)}`}`)
      .join(', ')}`,
  ];
  for (const mention of mentions) {
    const run = runs.get(mention.reference)?.[0];
    const trigger = await store.triggers.getByKey(mention.key);
    const tracked = trigger?.runId ? await store.trackedRuns.get(trigger.runId) : undefined;
    const rows = await store.outbox.list({ destination: mention.destination });
    const api = run ? `${run.state} updated ${run.updated_at}` : 'no run';
    const triggerPart = trigger
      ? `trigger ${trigger.state} x${trigger.attempts}${trigger.leaseOwner ? ` by ${trigger.leaseOwner} until ${clock(trigger.leaseUntil, now)}` : ''}`
      : 'no trigger';
    const trackerPart = tracked
      ? `tracker saw ${tracked.state} (transition ${tracked.transition}, ${tracked.tracked ? 'tracked' : 'untracked'}, server updated ${tracked.serverUpdatedAt ?? '-'}, seen ${clock(tracked.lastSeenAt, now)})`
      : 'not tracked';
    lines.push(
      `mention ${mention.index} (${mention.outcome}): run API ${api}; ${triggerPart}; ${trackerPart}; outbox: ${rows.map((row) => rowLine(row, now)).join(' | ') || 'nothing'}`,
    );
  }
  return lines;
}
