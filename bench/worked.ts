/**
 * Triggers worked per second end to end (issue 18), on SQLite and on PostgreSQL: a fixed batch of
 * signed Slack mentions sent at a moderate concurrency, timed from the first request until every one
 * has its run (counted by the emulator) and every message owed for it is delivered (the status message
 * posted and edited to show the run, 👀 added), with nothing left in the database's outbox.
 */
import { SLACK_SECRET } from './bench-service.js';
import { phase } from './bench-options.js';
import { withOutside } from './intake.js';
import type { LoadResult, WorldSeen } from './outside.js';
import { startReplicas, type Engine } from './replicas.js';
import { sleep, type Figure, type Section } from './report.js';

const SECTION = 'Worked end to end';
const CONNECTIONS = 10;
const LIMIT_MS = 60_000;
const POLL_MS = 100;
const TARGET = 100;

interface Config {
  engine: Engine;
  replicas: number;
  label: string;
}

const CONFIGS: Config[] = [
  { engine: 'sqlite', replicas: 1, label: 'SQLite, 1 process' },
  { engine: 'postgres', replicas: 1, label: 'PostgreSQL, 1 replica' },
  { engine: 'postgres', replicas: 3, label: 'PostgreSQL, 3 replicas' },
];

interface Result {
  config: Config;
  acks: LoadResult;
  /** From the first request until everything was worked and delivered, or the limit. */
  seconds: number;
  complete: boolean;
  runs: number;
  slack: WorldSeen['slack'];
}

const delta = (after: WorldSeen, before: WorldSeen, method: string) => (after.slack[method] ?? 0) - (before.slack[method] ?? 0);

export function workedSection(): Promise<Section> {
  const mentions = phase(2_000, 300);
  return withOutside('slack', async ({ load, world, urls }) => {
    const results: Result[] = [];
    for (const config of CONFIGS) {
      const set = await startReplicas(config.engine, config.replicas, urls);
      try {
        const before = await world.seen();
        const started = Date.now();
        const acks = await load.load({ kind: 'slack', url: set.urls, secret: SLACK_SECRET, connections: CONNECTIONS, seconds: 60, amount: mentions });
        let complete = false;
        while (!complete && Date.now() - started < LIMIT_MS) {
          const progress = await set.progress();
          complete = progress.stored === acks.ok && progress.worked === progress.stored && progress.owed === 0;
          if (!complete) await sleep(POLL_MS);
        }
        const seconds = (Date.now() - started) / 1000;
        const after = await world.seen();
        const slack = Object.fromEntries(Object.keys(after.slack).map((method) => [method, delta(after, before, method)]));
        results.push({ config, acks, seconds, complete, runs: after.runsCreated - before.runsCreated, slack });
      } finally {
        await set.stop();
      }
    }

    const rate = (result: Result) => (result.complete ? result.runs / result.seconds : Number.NaN);
    const sqlite = results[0] as Result;
    const figures: Figure[] = results.map((result) => ({
      section: SECTION,
      name: `${result.config.label}: worked/s`,
      value: rate(result),
      unit: '/s',
      baseline:
        result === sqlite
          ? { label: 'acknowledged/s, same run', value: result.acks.ok / result.acks.seconds }
          : { label: 'SQLite, 1 process', value: rate(sqlite) },
      target: { text: `≥ ${TARGET}/s, every mention worked`, met: result.complete && result.runs === result.acks.ok && rate(result) >= TARGET },
    }));
    return {
      title: SECTION,
      figures,
      notes: [
        `${mentions.toLocaleString('en-US')} signed Slack app_mention events sent by autocannon over ${CONNECTIONS} connections (spread over the replicas), as fast as they are acknowledged; timed from the first request until the database holds every trigger finished and no message owed (polled every ${POLL_MS} ms). worked/s = runs created (counted by the emulator) / that time. Fresh replicas (separate processes) and a fresh database per configuration.`,
        ...results.map(
          (result) =>
            `${result.config.label}: ${result.acks.ok.toLocaleString('en-US')} acknowledged in ${result.acks.seconds.toFixed(1)} s, ${result.runs.toLocaleString('en-US')} runs created, ` +
            `${result.complete ? `everything worked and delivered after ${result.seconds.toFixed(1)} s` : `NOT finished within ${LIMIT_MS / 1000} s`}; ` +
            `Slack calls: ${Object.entries(result.slack)
              .filter(([, n]) => n > 0)
              .map(([method, n]) => `${method} ${n}`)
              .join(', ')}.`,
        ),
      ],
    };
  });
}
