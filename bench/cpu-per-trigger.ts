/**
 * CPU per worked trigger, end to end: signed Slack mentions sent one at a time to
 * one service process on a fresh SQLite file, each acknowledged, its run created and everything owed
 * for it delivered (👀, the status message posted and edited, the permalink). The figure is the
 * service process's CPU (user + system) from the first request until nothing is owed, divided by the
 * runs created. Baseline, same run: the CPU a bare Bolt app (bench-service.ts) spends only
 * acknowledging the same mentions, the floor of any Slack edge on Bolt.
 *
 * With BENCH_CPU_PROF set, the service child writes a V8 CPU profile (node --cpu-prof) whose summary
 * by area is printed (bench/profile.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Profiler } from 'node:inspector';
import { SLACK_SECRET, startBareBolt } from './bench-service.js';
import { phase } from './bench-options.js';
import { withOutside } from './intake.js';
import { summarise } from './profile.js';
import { startReplicas } from './replicas.js';
import { sleep, type Section } from './report.js';

const SECTION = 'CPU per worked trigger';
const LIMIT_MS = 60_000;
const POLL_MS = 50;

export function cpuPerTrigger(): Promise<Section> {
  const mentions = phase(600, 150);
  return withOutside('slack', async ({ load, world, urls }) => {
    // Warm-up on its own service: JIT and first connections are not what a trigger costs.
    const bareBolt = await startBareBolt(urls);
    let boltMs: number;
    try {
      await load.load({ kind: 'slack', url: bareBolt.url, secret: SLACK_SECRET, connections: 1, seconds: 30, amount: 200 });
      const before = process.cpuUsage();
      const acks = await load.load({ kind: 'slack', url: bareBolt.url, secret: SLACK_SECRET, connections: 1, seconds: 30, amount: mentions });
      const used = process.cpuUsage(before);
      boltMs = (used.user + used.system) / 1000 / acks.ok;
    } finally {
      await bareBolt.stop();
    }

    const profiles = process.env['BENCH_CPU_PROF'];
    const known = new Set(profiles ? safeList(profiles) : []);
    const set = await startReplicas('sqlite', 1, urls, 'cpu-per-trigger');
    let result: { cpuMs: number; runs: number; seconds: number; complete: boolean; acked: number; slack: Record<string, number> };
    try {
      await load.load({ kind: 'slack', url: set.urls, secret: SLACK_SECRET, connections: 1, seconds: 30, amount: 100 });
      await settle(() => set.progress());
      const seenBefore = await world.seen();
      const cpuBefore = await set.cpuMs();
      const started = Date.now();
      const acks = await load.load({ kind: 'slack', url: set.urls, secret: SLACK_SECRET, connections: 1, seconds: 60, amount: mentions });
      const complete = await settle(() => set.progress());
      const cpuMs = (await set.cpuMs()) - cpuBefore;
      const seenAfter = await world.seen();
      const slack = Object.fromEntries(
        Object.keys(seenAfter.slack).map((method) => [method, (seenAfter.slack[method] ?? 0) - (seenBefore.slack[method] ?? 0)]),
      );
      result = { cpuMs, runs: seenAfter.runsCreated - seenBefore.runsCreated, seconds: (Date.now() - started) / 1000, complete, acked: acks.ok, slack };
    } finally {
      await set.stop();
    }
    const notes: string[] = [];
    if (profiles) notes.push(...profileSummary(profiles, known));
    const perTrigger = result.cpuMs / result.runs;
    return {
      title: SECTION,
      figures: [
        {
          section: SECTION,
          name: 'service CPU per worked trigger (c=1, SQLite)',
          value: perTrigger,
          unit: 'ms',
          baseline: { label: 'bare Bolt CPU per acknowledgement', value: boltMs },
          // The target: at least halved. The same measure on the code before the CPU work (782846b) gave 7.8–9.8 ms
          // in interleaved runs on this machine (docs/benchmarks.md), so half is about 4 ms.
          target: {
            text: '≤ 4 ms (half of ~8 ms before issue 26), every mention worked',
            met: result.complete && result.runs === result.acked && perTrigger <= 4,
          },
        },
      ],
      notes: [
        `${mentions} correctly signed Slack app_mention events sent one at a time (autocannon, 1 connection) to one service process (bench/service-child.ts, Slack over HTTP, a fresh SQLite file, the world child's fake Slack Web API and emulator), after 100 mentions of warm-up worked to the end. CPU = the service process's user + system time from the first request until every trigger was finished and nothing was owed, divided by the runs the emulator created; it includes acknowledging, creating the run and every Slack call owed for it.`,
        `${result.acked} acknowledged, ${result.runs} runs created, ${result.complete ? `everything worked and delivered after ${result.seconds.toFixed(1)} s` : `NOT finished within ${LIMIT_MS / 1000} s`}; ${(result.cpuMs / 1000).toFixed(2)} s of CPU in all (${((100 * result.cpuMs) / 1000 / result.seconds).toFixed(0)}% of one core). Slack calls: ${Object.entries(
          result.slack,
        )
          .filter(([, n]) => n > 0)
          .map(([method, n]) => `${method} ${n}`)
          .join(', ')}.`,
        `Baseline: a bare Bolt app in the bench process (Bolt's HTTPReceiver, one do-nothing app_mention listener) acknowledging ${mentions} of the same mentions one at a time: ${boltMs.toFixed(2)} ms of CPU each.`,
        ...notes,
      ],
    };

    async function settle(progress: () => ReturnType<typeof set.progress>): Promise<boolean> {
      const deadline = Date.now() + LIMIT_MS;
      for (;;) {
        const p = await progress();
        if (p.worked === p.stored && p.owed === 0) return true;
        if (Date.now() > deadline) return false;
        await sleep(POLL_MS);
      }
    }
  });
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The service child's main-thread profile (the largest new file), summarised by area. */
function profileSummary(dir: string, known: Set<string>): string[] {
  const fresh = safeList(dir).filter((name) => name.endsWith('.cpuprofile') && !known.has(name));
  const largest = fresh.map((name) => ({ name, size: readFileSync(join(dir, name)).length })).sort((a, b) => b.size - a.size)[0];
  if (!largest) return ['No CPU profile was written by the service child.'];
  const profile = JSON.parse(readFileSync(join(dir, largest.name), 'utf8')) as Profiler.Profile;
  return [
    `CPU profile of the service child (${join(dir, largest.name)}), self time by area, warm-up and start included: ${summarise(profile, 12)
      .map((line) => line.trim().replace(/\s+/g, ' '))
      .join('; ')}.`,
  ];
}
