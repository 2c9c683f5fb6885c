/**
 * Latency to people of a state change: the run API moves a run (emulator, manual mode:
 * `engine.drive(runId, 'INPROGRESS')`) → the Slack status message is edited to say so (the fake
 * Slack Web API records the `chat.update` carrying the run id and "In progress"). The real service in
 * this process with `tracker.interval: 1s`, a SQLite file, the emulator and the fake Slack Web API.
 *
 * Changes happen at random offsets within a tracker interval, a few runs per round. The baseline is
 * the lower bound of any poller at this interval: for each change, the time until the tracker's next
 * list request reached the emulator (it cannot know before it asks).
 */
import { rmSync } from 'node:fs';
import type { RequestLogEntry } from '../src/emulator/index.js';
import type { RunningService } from '../src/main.js';
import { postSlackEvent } from '../test/fakes/slack-signing.js';
import { appMention, eventCallback } from '../test/fixtures/slack/events.js';
import { SLACK_IDS } from '../test/fixtures/slack/ids.js';
import { profiled } from './profile.js';
import { startSlackWorld } from './slack-world.js';
import { quantile, sleep, type Figure, type Section } from './report.js';

const SECTION = 'Latency to people';
const SECRET = 'bench-people-signing-secret-0123456789';
const BOT_TOKEN = 'xoxb-0000-2222-bench-token';
const API_KEY = 'bench-people-run-api-key';
const INTERVAL_MS = 1_000;
const ROUNDS = 12;
const PER_ROUND = 5;
const TARGET_MS = INTERVAL_MS + 200;

/** Waits (bounded) until `find` gives something. */
async function until<T>(find: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${SECTION}: no ${what} within ${timeoutMs} ms`);
    await sleep(5);
  }
}

async function idle(service: RunningService): Promise<boolean> {
  const triggers = await service.store.triggers.countByState();
  const outbox = await service.store.outbox.counts();
  return triggers.pending + triggers.working === 0 && outbox.pending + outbox.sending === 0;
}

export async function peopleLatency(): Promise<Section> {
  const { fake, emulator, service, cwd, events } = await startSlackWorld({
    name: 'people',
    botToken: BOT_TOKEN,
    secret: SECRET,
    apiKey: API_KEY,
    yaml: `tracker:\n  interval: ${INTERVAL_MS / 1000}s\n`,
  });
  const edited = (runId: string, label: string) =>
    fake
      .callsTo('chat.update')
      .find((call) => call.status === 200 && JSON.stringify(call.args['blocks'] ?? '').includes(runId) && JSON.stringify(call.args['blocks']).includes(label));
  const listRequests = async (): Promise<number[]> => {
    const response = await fetch(`${emulator.url}/_emulator/requests`);
    const { requests } = (await response.json()) as { requests: RequestLogEntry[] };
    return requests.filter((r) => r.method === 'GET' && r.path === '/api/v1/agent/runs').map((r) => Date.parse(r.at));
  };

  const measured: number[] = [];
  const lowerBound: number[] = [];
  const overhead: number[] = [];
  let failures = 0;
  try {
    const known = new Set<string>();
    /** PER_ROUND mentions → their runs, each shown on its status message as Queued, nothing owed. */
    const newRuns = async (): Promise<string[]> => {
      for (let index = 0; index < PER_ROUND; index++) {
        const response = await postSlackEvent(events, SECRET, eventCallback(appMention({ channel: SLACK_IDS.channel })));
        await response.arrayBuffer();
        if (response.status !== 200) failures++;
      }
      const runs = await until(
        () => {
          const fresh = emulator.engine
            .list({ limit: 500 })
            .runs.map((run) => run.run_id)
            .filter((id) => !known.has(id));
          return fresh.length >= PER_ROUND ? fresh : undefined;
        },
        'runs created',
        10_000,
      );
      for (const runId of runs) known.add(runId);
      for (const runId of runs) await until(() => edited(runId, 'Queued'), `status message of ${runId}`, 10_000);
      await until(async () => ((await idle(service)) ? true : undefined), 'idle service', 10_000);
      return runs;
    };
    /** Each run moves to INPROGRESS at a random moment of the next interval; resolves with the latencies. */
    const round = (runs: string[]) =>
      Promise.all(
        runs.map(async (runId) => {
          await sleep(Math.random() * INTERVAL_MS);
          const changed = Date.now();
          emulator.engine.drive(runId, 'INPROGRESS');
          const call = await until(() => edited(runId, 'In progress'), `edit of ${runId}`, 5 * INTERVAL_MS);
          return { changed, at: call.at };
        }),
      );

    // Warm-up round, not counted.
    await round(await newRuns());
    await profiled('people-rounds', async () => {
      for (let index = 0; index < ROUNDS; index++) {
        const samples = await round(await newRuns());
        const lists = await listRequests();
        for (const { changed, at } of samples) {
          const nextList = lists.find((t) => t >= changed);
          measured.push(at - changed);
          if (nextList !== undefined) {
            lowerBound.push(nextList - changed);
            overhead.push(at - nextList);
          }
        }
      }
    });
  } finally {
    await service.stop();
    await emulator.close();
    await fake.close();
    rmSync(cwd, { recursive: true, force: true });
  }

  const ms = (name: string, value: number, baseline?: number, target?: Figure['target']): Figure => ({
    section: SECTION,
    name,
    value,
    unit: 'ms',
    ...(baseline !== undefined && { baseline: { label: 'next tracker list request', value: baseline } }),
    ...(target && { target }),
  });
  const max = Math.max(...measured);
  return {
    title: SECTION,
    figures: [
      ms('state change → Slack edit, p50', quantile(measured, 0.5), quantile(lowerBound, 0.5)),
      ms('state change → Slack edit, p95', quantile(measured, 0.95), quantile(lowerBound, 0.95)),
      ms('state change → Slack edit, max', max, Math.max(...lowerBound), {
        text: `< interval + 200 ms (${TARGET_MS} ms), all seen`,
        met: max < TARGET_MS && measured.length === ROUNDS * PER_ROUND && failures === 0,
      }),
      ms('tracker request → Slack edit, p50', quantile(overhead, 0.5)),
      ms('tracker request → Slack edit, p95', quantile(overhead, 0.95)),
      ms('tracker request → Slack edit, max', Math.max(...overhead)),
    ],
    notes: [
      `tracker.interval ${INTERVAL_MS / 1000}s. ${ROUNDS} rounds of ${PER_ROUND} runs (after one warm-up round): each round starts ${PER_ROUND} runs by mentions, waits until each status message shows the run as Queued and nothing is owed, then moves each run to INPROGRESS in the emulator at a random moment within the next interval (uniform) and waits for the fake Slack Web API to record the chat.update of its status message saying "In progress". ${measured.length} changes measured${failures ? `; ${failures} mentions NOT answered 200` : ''}.`,
      'Baseline: for each change, the time until the next GET /agent/runs from the tracker reached the emulator (its request log). No poller at this interval can tell anyone sooner; a per-run GET poller has the same bound. "tracker request → Slack edit" is the part the service adds: the tick (list, compare, store the transition with its outbox row) and the outbox delivering the edit. Clocks: Date.now() in one process, 1 ms resolution.',
      'Mention → first Slack Web API call (:eyes:) is measured in the Slack latency section ("one mention → first Slack write").',
    ],
  };
}
