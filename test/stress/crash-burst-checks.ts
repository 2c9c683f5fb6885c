/**
 * What the crash suites check after a burst (test/stress/crash-burst-scenario.ts): the mentions'
 * plan, what people saw in the threads (counted on the fake Slack API's record, not on what the
 * service believes), the service's own books read after its last process stopped, and a one-line
 * summary of the figures. Shared by the SQLite and the PostgreSQL crash suites.
 */
import { expect } from 'vitest';
import { isTerminalState } from '../../src/core/ports/agent-runs.js';
import { receivedKey } from '../../src/core/ports/messages.js';
import type { Store } from '../../src/core/ports/store.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { FakeMessage, FakeSlackApi } from '../fakes/slack-api.js';
import type { EventCallback } from '../fixtures/slack/events.js';
import { sumReports, type BridgePool, type DeliveryReport } from './crash-harness.js';
import { KILL_HOLDS_MS } from './promises.js';

export const CHANNELS = ['C0STRESS01', 'C0STRESS02', 'C0STRESS03', 'C0STRESS04'];

export type Outcome = 'succeed' | 'pr' | 'fail' | 'error' | 'block';
export const ANNOUNCED: Record<Outcome, string[]> = {
  succeed: ['SUCCEEDED'],
  pr: ['SUCCEEDED'],
  fail: ['FAILED'],
  error: ['ERROR'],
  block: ['BLOCKED', 'SUCCEEDED'],
};
export const DIRECTIVE: Record<Outcome, string> = {
  succeed: '',
  pr: ' emulate: pr',
  fail: ' emulate: fail',
  error: ' emulate: error',
  block: ' emulate: block',
};

export interface Mention {
  index: number;
  channel: string;
  ts: string;
  text: string;
  key: string;
  destination: string;
  reference: string;
  outcome: Outcome;
  /** Slack delivers this one twice although the first delivery was answered. */
  redelivered: boolean;
  envelope: EventCallback;
  acked: boolean;
  /** When Slack got its 200, and when the thread first showed the end (seen by polling). */
  ackedAt?: number;
  settledAt?: number;
  delivery?: DeliveryReport;
  /** BLOCKED run driven on by the test. */
  released: boolean;
}

/** The state an announcement post speaks of (render-text.ts: ⏸ BLOCKED, ✅ Done, ❌ <title> FAILED|ERROR). */
export function announcedState(post: FakeMessage): string {
  if (post.text.startsWith('⏸')) return 'BLOCKED';
  if (post.text.startsWith('✅')) return 'SUCCEEDED';
  const ended = /^❌ .* (FAILED|ERROR)[:.]/.exec(post.text);
  return ended?.[1] ?? `?${post.text.slice(0, 60)}`;
}

export const metadataKey = (post: FakeMessage): string | undefined => {
  const key = post.metadata?.event_payload['key'];
  return typeof key === 'string' ? key : undefined;
};

export const endReaction = (outcome: Outcome) => (outcome === 'fail' || outcome === 'error' ? 'x' : 'white_check_mark');
export const announcements = (posts: FakeMessage[]) => posts.filter((post) => metadataKey(post)?.endsWith(':announce'));

/** A run as the emulator lists it. */
export type EmulatorRunView = ReturnType<RunningEmulator['engine']['list']>['runs'][number];
type EmulatorRun = EmulatorRunView;

/** Reads what people would see: the threads on the fake Slack API, the runs in the emulator. */
export class ThreadView {
  constructor(
    private readonly slack: FakeSlackApi,
    private readonly emulator: RunningEmulator,
  ) {}

  /** The bot's posts of every thread, by `channel ts` of the thread. */
  threads(): Map<string, FakeMessage[]> {
    const byThread = new Map<string, FakeMessage[]>();
    for (const channel of CHANNELS) {
      for (const message of this.slack.messages(channel)) {
        if (message.bot_id === undefined || message.thread_ts === undefined) continue;
        const id = `${channel} ${message.thread_ts}`;
        byThread.set(id, [...(byThread.get(id) ?? []), message]);
      }
    }
    return byThread;
  }

  /** Emulator runs by the reference line in their prompt. */
  runsByReference(): Map<string, EmulatorRun[]> {
    const byRef = new Map<string, EmulatorRun[]>();
    for (const run of this.emulator.engine.list({ limit: 100_000 }).runs) {
      const ref = /\(agent-bridge ref [0-9a-f]+\)/.exec(run.prompt ?? '')?.[0] ?? '(none)';
      byRef.set(ref, [...(byRef.get(ref) ?? []), run]);
    }
    return byRef;
  }

  /** True once the mention's run ended and its thread shows every announcement and the end reaction. */
  settled(mention: Mention, runs: Map<string, EmulatorRun[]>, byThread: Map<string, FakeMessage[]>): boolean {
    const run = runs.get(mention.reference)?.[0];
    if (!run || !isTerminalState(run.state)) return false;
    const posts = byThread.get(`${mention.channel} ${mention.ts}`) ?? [];
    if (announcements(posts).length < ANNOUNCED[mention.outcome].length) return false;
    return this.slack.reactions(mention.channel, mention.ts).includes(endReaction(mention.outcome));
  }

  /**
   * The mentions whose thread has not shown a state people must hear of — BLOCKED (until the test
   * lets the run go on) or the end — that the run API reported at a time `late` says is too long ago.
   */
  overdue(mentions: readonly Mention[], now: number, late: (reportedAt: number) => boolean): string[] {
    const runs = this.runsByReference();
    const byThread = this.threads();
    const found: string[] = [];
    for (const mention of mentions) {
      if (mention.settledAt !== undefined) continue;
      const run = runs.get(mention.reference)?.[0];
      if (!run || (!isTerminalState(run.state) && run.state !== 'BLOCKED')) continue;
      const shown = announcements(byThread.get(`${mention.channel} ${mention.ts}`) ?? []).map(announcedState);
      const awaited = run.state === 'BLOCKED' ? shown.includes('BLOCKED') : this.settled(mention, runs, byThread);
      const reportedAt = Date.parse(run.updated_at ?? '');
      if (!awaited && late(reportedAt)) found.push(`mention ${mention.index} ${run.state} ${((now - reportedAt) / 1000).toFixed(1)} s ago`);
    }
    return found;
  }

  /** A failure message's detail: how many mentions are open, with a sample. */
  unsettled(mentions: readonly Mention[]): string {
    const runs = this.runsByReference();
    const byThread = this.threads();
    const open = mentions.filter((mention) => !this.settled(mention, runs, byThread));
    const sample = open.slice(0, 3).map((m) => ({
      i: m.index,
      outcome: m.outcome,
      acked: m.acked,
      runs: runs.get(m.reference)?.map((r) => r.state),
      posts: (byThread.get(`${m.channel} ${m.ts}`) ?? []).map((p) => metadataKey(p)),
      reactions: this.slack.reactions(m.channel, m.ts),
    }));
    return `${open.length} mentions unsettled, e.g. ${JSON.stringify(sample)}`;
  }
}

/** The service's own books, read after its last process stopped. */
export interface Books {
  outbox: Awaited<ReturnType<Store['outbox']['counts']>>;
  failedRows: string[];
  triggerStates: Awaited<ReturnType<Store['triggers']['countByState']>>;
  stillTracked: number;
  triggerRuns: Map<string, string | undefined>;
  /** Triggers claimed more than once: their first holder died (or its lease ran out) before finishing. */
  triggersReclaimed: number;
  /** Rows claimed more than once: their first holder died (or its lease ran out) before recording the outcome. */
  rowsRedelivered: number;
  /** Per mention: when the tracker owed its thread the last announcement (the row's creation) and when it was sent. */
  lastAnnouncement: Map<string, { owedAt: number; sentAt: number | null }>;
}

export async function readBooks(store: Store, mentions: readonly Mention[]): Promise<Books> {
  const triggerRuns = new Map<string, string | undefined>();
  let triggersReclaimed = 0;
  const lastAnnouncement = new Map<string, { owedAt: number; sentAt: number | null }>();
  for (const mention of mentions) {
    const trigger = await store.triggers.getByKey(mention.key);
    triggerRuns.set(mention.key, trigger?.runId ?? undefined);
    if ((trigger?.attempts ?? 0) > 1) triggersReclaimed++;
    const announced = (await store.outbox.list({ destination: mention.destination })).filter((row) => row.kind === 'announce').at(-1);
    if (announced) lastAnnouncement.set(mention.key, { owedAt: announced.createdAt, sentAt: announced.sentAt });
  }
  return {
    outbox: await store.outbox.counts(),
    failedRows: (await store.outbox.list({ state: 'failed' })).map((row) => `${row.key}: ${row.lastError ?? ''}`),
    triggerStates: await store.triggers.countByState(),
    stillTracked: await store.trackedRuns.countTracked(),
    triggerRuns,
    triggersReclaimed,
    rowsRedelivered: (await store.outbox.list()).filter((row) => row.attempts > 1).length,
    lastAnnouncement,
  };
}

/** Everything that differs from "one run, one status message, each state announced once" per mention. */
export function threadProblems(slack: FakeSlackApi, view: ThreadView, mentions: readonly Mention[], books: Books, expectedRuns: number): string[] {
  const runs = view.runsByReference();
  const byThread = view.threads();
  const postsPerThread = new Map<string, number>();
  for (const call of slack.callsTo('chat.postMessage')) {
    const id = `${String(call.args['channel'])} ${String(call.args['thread_ts'])}`;
    postsPerThread.set(id, (postsPerThread.get(id) ?? 0) + 1);
  }
  const reactionCalls = [...slack.callsTo('reactions.add'), ...slack.callsTo('reactions.remove')].sort((a, b) => a.seq - b.seq);
  const problems: string[] = [];
  for (const mention of mentions) {
    const where = `mention ${mention.index} (${mention.outcome}, ${mention.channel} ${mention.ts})`;
    const found = runs.get(mention.reference) ?? [];
    if (found.length !== 1) problems.push(`${where}: ${found.length} runs`);
    const run = found[0];
    if (run && books.triggerRuns.get(mention.key) !== run.run_id)
      problems.push(`${where}: trigger names run ${books.triggerRuns.get(mention.key)}, emulator has ${run.run_id}`);
    const expectedEnd = mention.outcome === 'fail' ? 'FAILED' : mention.outcome === 'error' ? 'ERROR' : 'SUCCEEDED';
    if (run && run.state !== expectedEnd) problems.push(`${where}: run ended ${run.state}, expected ${expectedEnd}`);

    const posts = byThread.get(`${mention.channel} ${mention.ts}`) ?? [];
    const statusPosts = posts.filter((post) => metadataKey(post) === receivedKey(mention.key, mention.destination));
    if (statusPosts.length !== 1) problems.push(`${where}: ${statusPosts.length} status messages`);
    const replacements = posts.filter((post) => post.metadata?.event_payload['status_of'] !== undefined);
    if (replacements.length > 0) problems.push(`${where}: ${replacements.length} replacement status messages`);
    const finalStatus = JSON.stringify(statusPosts[0]?.blocks ?? []);
    const endLabel = { SUCCEEDED: 'Succeeded', FAILED: 'Failed', ERROR: 'Error' }[expectedEnd];
    if (statusPosts[0] && !finalStatus.includes(endLabel)) problems.push(`${where}: status message does not show ${endLabel}`);
    const announced = announcements(posts).map(announcedState);
    if (JSON.stringify(announced) !== JSON.stringify(ANNOUNCED[mention.outcome]))
      problems.push(`${where}: announced ${JSON.stringify(announced)}, expected ${JSON.stringify(ANNOUNCED[mention.outcome])}`);
    const keys = posts.map(metadataKey);
    if (new Set(keys).size !== keys.length || keys.includes(undefined)) problems.push(`${where}: posts with repeated or missing keys ${JSON.stringify(keys)}`);
    const expectedPosts = 1 + ANNOUNCED[mention.outcome].length;
    const calls = postsPerThread.get(`${mention.channel} ${mention.ts}`) ?? 0;
    if (posts.length !== expectedPosts || calls !== expectedPosts)
      problems.push(`${where}: ${posts.length} posts in the thread from ${calls} chat.postMessage calls, expected ${expectedPosts}`);

    const reactions = slack.reactions(mention.channel, mention.ts);
    if (JSON.stringify(reactions) !== JSON.stringify([endReaction(mention.outcome)])) problems.push(`${where}: reactions ${JSON.stringify(reactions)}`);
    const mine = reactionCalls.filter((call) => call.args['timestamp'] === mention.ts && call.args['channel'] === mention.channel && call.response?.ok);
    const order = mine.map((call) => `${call.method === 'reactions.add' ? '+' : '-'}${String(call.args['name'])}`).join(' ');
    if (order !== `+eyes -eyes +${endReaction(mention.outcome)}`) problems.push(`${where}: reaction changes ${order}`);
  }
  const strayRuns = [...runs.values()].reduce((sum, list) => sum + list.length, 0) - expectedRuns;
  if (strayRuns !== 0) problems.push(`${strayRuns} runs beyond one per mention`);
  const bareChannelPosts = slack.callsTo('chat.postMessage').filter((call) => call.args['thread_ts'] === undefined).length;
  if (bareChannelPosts !== 0) problems.push(`${bareChannelPosts} posts outside a thread`);
  return problems;
}

/** The q-quantile of `values` (sorted here), in seconds with one decimal. */
function quantileOf(values: number[], q: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
}

/** The figures of a burst in one line (what the Reliability table quotes). */
export function summaryLine(slack: FakeSlackApi, view: ThreadView, mentions: readonly Mention[], books: Books, pool: BridgePool): string {
  const runs = view.runsByReference();
  const postCalls = slack.callsTo('chat.postMessage');
  const reactionCalls = slack.callsTo('reactions.add').length + slack.callsTo('reactions.remove').length;
  const announceCount = mentions.reduce((sum, mention) => sum + ANNOUNCED[mention.outcome].length, 0);
  const seconds = (to: number | undefined, from: number | undefined) => ((to ?? Number.NaN) - (from ?? Number.NaN)) / 1000;
  const eyesAt = new Map<string, number>();
  for (const call of slack.callsTo('reactions.add')) {
    const id = `${String(call.args['channel'])} ${String(call.args['timestamp'])}`;
    if (call.args['name'] === 'eyes' && !eyesAt.has(id)) eyesAt.set(id, call.at);
  }
  const eyes = mentions.map((m) => seconds(eyesAt.get(`${m.channel} ${m.ts}`), m.ackedAt));
  const toRun = mentions.map((m) => seconds(Date.parse(runs.get(m.reference)?.[0]?.created_at ?? ''), m.ackedAt));
  const toEnd = mentions.map((m) => seconds(m.settledAt, m.ackedAt));
  // From the run's end in the run API to its thread showing it: the tracker's interval, a takeover
  // after a kill, and the outbox's queue — what the service promises, without the burst's own queue.
  const endedAt = (m: Mention) => Date.parse(runs.get(m.reference)?.[0]?.updated_at ?? '');
  const endShown = mentions.map((m) => seconds(m.settledAt, endedAt(m)));
  // The same span in two parts, from the books: the tracker owing the end, the outbox sending it.
  const endOwed = mentions.map((m) => seconds(books.lastAnnouncement.get(m.key)?.owedAt, endedAt(m)));
  const owedSent = mentions.map((m) => seconds(books.lastAnnouncement.get(m.key)?.sentAt ?? undefined, books.lastAnnouncement.get(m.key)?.owedAt));
  const deliveries = sumReports(mentions.flatMap((mention) => (mention.delivery ? [mention.delivery] : [])));
  const failedDeliveries =
    Object.entries(deliveries.failures)
      .map(([reason, count]) => `${reason} ${count}`)
      .join(', ') || 'none';
  const adopted = logLines(pool).filter((line) => /adopted the run an earlier attempt created/.test(line)).length;
  const runCount = [...runs.values()].reduce((sum, list) => sum + list.length, 0);
  return (
    `mentions=${mentions.length} runs=${runCount} posts=${postCalls.length} (status ${mentions.length}, blocked+end ${announceCount}) ` +
    `edits=${slack.callsTo('chat.update').length} reaction-calls=${reactionCalls} slack-deliveries=${deliveries.attempts} ` +
    `(failed: ${failedDeliveries}; redelivered ${mentions.filter((m) => m.redelivered).length}) ` +
    `crash-recoveries: triggers=${books.triggersReclaimed} (runs adopted ${adopted}) outbox-rows=${books.rowsRedelivered} log-errors=${errorLines(pool).length} ` +
    `ack-to-eyes p50=${quantileOf(eyes, 0.5)}s p95=${quantileOf(eyes, 0.95)}s max=${quantileOf(eyes, 1)}s ` +
    `ack-to-run p50=${quantileOf(toRun, 0.5)}s p95=${quantileOf(toRun, 0.95)}s ack-to-end p50=${quantileOf(toEnd, 0.5)}s p95=${quantileOf(toEnd, 0.95)}s max=${quantileOf(toEnd, 1)}s ` +
    `end-to-shown p50=${quantileOf(endShown, 0.5)}s p95=${quantileOf(endShown, 0.95)}s max=${quantileOf(endShown, 1)}s ` +
    `(end-to-owed p50=${quantileOf(endOwed, 0.5)}s p95=${quantileOf(endOwed, 0.95)}s max=${quantileOf(endOwed, 1)}s, ` +
    `owed-to-sent p50=${quantileOf(owedSent, 0.5)}s p95=${quantileOf(owedSent, 0.95)}s max=${quantileOf(owedSent, 1)}s) ` +
    `processes-started=${pool.started.length}`
  );
}

/** Every JSON log line the pool's processes printed. */
export function logLines(pool: BridgePool): string[] {
  return pool.started.flatMap((child) => child.output.stdout.split('\n').filter((line) => line.startsWith('{')));
}

/** Log lines at error level or above. */
export function errorLines(pool: BridgePool): string[] {
  return logLines(pool).filter((line) => /"level":(50|60)/.test(line));
}

/**
 * Threads that showed their run's end later than `promiseMs(kills)` after the run API reported it, not
 * counting time when no process was up (seen by the watcher, which looks every 200 ms); `kills` are
 * those that could hold the end up (`KILL_HOLDS_MS` before it was reported, up to when it showed).
 */
export function lateEnds(view: ThreadView, mentions: readonly Mention[], pool: BridgePool, promiseMs: (kills: number) => number): string[] {
  const runs = view.runsByReference();
  const late: string[] = [];
  for (const mention of mentions) {
    const run = runs.get(mention.reference)?.[0];
    if (!run || mention.settledAt === undefined) continue;
    const endedAt = Date.parse(run.updated_at ?? '');
    const took = mention.settledAt - endedAt - pool.downBetween(endedAt, mention.settledAt);
    const kills = pool.killsBetween(endedAt - KILL_HOLDS_MS, mention.settledAt);
    const promised = promiseMs(kills);
    if (took > promised)
      late.push(
        `mention ${mention.index}: its end shown ${(took / 1000).toFixed(1)} s after the run API reported it (promised within ${promised / 1000} s, ${kills} kill(s) on its way)`,
      );
  }
  return late;
}

/** The end state every burst must reach: nothing owed, nothing left half-done. */
export function expectSettledBooks(books: Books, mentions: number): void {
  expect(books.outbox).toMatchObject({ pending: 0, sending: 0, failed: 0 });
  expect(books.failedRows).toEqual([]);
  expect(books.triggerStates).toMatchObject({ done: mentions, pending: 0, working: 0, failed: 0, ignored: 0 });
  expect(books.stillTracked).toBe(0);
}
