/**
 * `npm run bench`: every figure next to a baseline measured in the same run, then a summary of the
 * targets. Loopback traffic only; every loop is bounded in count and every section in time.
 *
 *   npm run bench                 # all sections
 *   npm run bench -- tracker ack  # some of them: tracker, ack, intake, linear, people, footprint,
 *                                 #   replicas, worked, worked-jira, tracker-pg, flood, console, cpu
 *   npm run bench -- postgres     # the PostgreSQL and flood sections; add --quick for short phases
 *   BENCH_CPU_PROF=/tmp/prof npm run bench   # also CPU profiles of the measured phases (bench/profile.ts)
 *
 * Exits 0 when every section ran (missed targets are reported, not failures), 1 when one crashed.
 */
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { ackLatency } from './ack-latency.js';
import { footprint } from './footprint.js';
import { linearIntake, slackIntake } from './intake.js';
import { peopleLatency } from './people.js';
import { watchMachine } from './machine.js';
import { renderSection, renderSummary, withDeadline, type Section } from './report.js';
import { trackerCost } from './tracker-cost.js';
import { trackerCostPostgres } from './tracker-cost-postgres.js';
import { floodSection } from './flood.js';
import { replicaIntake } from './replica-intake.js';
import { stopBenchPostgres } from './replicas.js';
import { workedJiraSection, workedSection } from './worked.js';
import { consoleBench } from './console.js';
import { cpuPerTrigger } from './cpu-per-trigger.js';

const SECTIONS: Array<{ key: string; title: string; limitMs: number; run: () => Promise<Section> }> = [
  { key: 'tracker', title: 'Tracker cost', limitMs: 90_000, run: () => trackerCost() },
  { key: 'ack', title: 'Slack latency', limitMs: 90_000, run: () => ackLatency() },
  { key: 'intake', title: 'Slack intake', limitMs: 90_000, run: () => slackIntake() },
  { key: 'linear', title: 'Linear intake', limitMs: 90_000, run: () => linearIntake() },
  { key: 'people', title: 'Latency to people', limitMs: 90_000, run: () => peopleLatency() },
  { key: 'footprint', title: 'Footprint', limitMs: 150_000, run: () => footprint() },
  { key: 'replicas', title: 'Replicas: Slack intake', limitMs: 240_000, run: () => replicaIntake() },
  { key: 'worked', title: 'Worked end to end', limitMs: 240_000, run: () => workedSection() },
  { key: 'worked-jira', title: 'Worked end to end: Jira', limitMs: 150_000, run: () => workedJiraSection() },
  { key: 'tracker-pg', title: 'Tracker cost on PostgreSQL', limitMs: 180_000, run: () => trackerCostPostgres() },
  { key: 'flood', title: 'Flood: work keeps pace', limitMs: 240_000, run: () => floodSection() },
  { key: 'console', title: 'Console', limitMs: 180_000, run: () => consoleBench() },
  { key: 'cpu', title: 'CPU per worked trigger', limitMs: 180_000, run: () => cpuPerTrigger() },
];

/** Names for several sections at once. */
const GROUPS: Record<string, string[]> = { postgres: ['replicas', 'worked', 'tracker-pg', 'flood'] };

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes('--quick')) process.env['BENCH_QUICK'] = '1';
  const wanted = args.filter((arg) => arg !== '--quick').flatMap((arg) => GROUPS[arg] ?? [arg]);
  const unknown = wanted.filter((key) => !SECTIONS.some((section) => section.key === key));
  if (unknown.length > 0) {
    process.stderr.write(
      `bench: unknown section ${unknown.join(', ')}; choose from ${[...SECTIONS.map((s) => s.key), ...Object.keys(GROUPS)].join(', ')} (and --quick)\n`,
    );
    return 2;
  }
  const selected = SECTIONS.filter((section) => wanted.length === 0 || wanted.includes(section.key));
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const started = Date.now();
  console.log('# agent-bridge benchmarks');
  console.log('');
  console.log(
    `${new Date(started).toISOString()} · ${availableParallelism()} cores (${cpu}) · ${(totalmem() / 2 ** 30).toFixed(1)} GiB · Node ${process.version} · ${process.platform}/${process.arch} · load average before start ${loadavg()[0]?.toFixed(2)} (other work on the machine)`,
  );

  const done: Section[] = [];
  let crashed = 0;
  for (const section of selected) {
    const begin = Date.now();
    process.stderr.write(`bench: ${section.title} …\n`);
    const machine = watchMachine();
    try {
      const result = await withDeadline(section.title, section.limitMs, section.run);
      const busy = machine.stop();
      if (busy) result.notes.push(`${busy[0]?.toUpperCase()}${busy.slice(1)}.`);
      done.push(result);
      console.log('');
      console.log(renderSection(result));
      process.stderr.write(`bench: ${section.title} took ${((Date.now() - begin) / 1000).toFixed(1)} s\n`);
    } catch (error) {
      crashed++;
      console.log('');
      console.log(`## ${section.title}\n\nFAILED to run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }
  await stopBenchPostgres();
  console.log('');
  console.log(renderSummary(done));
  if (crashed > 0) console.log(`${crashed} section(s) could not run; see above.`);
  console.log(`Total ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  return crashed > 0 ? 1 : 0;
}

// Exit explicitly: a section that failed half-way may leave a socket or timer behind.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
