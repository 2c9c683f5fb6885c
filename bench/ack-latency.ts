/**
 * Acknowledgement latency and latency to people: the real service (startService) with Slack over
 * HTTP, in this process, on a SQLite file, the emulator as run API and the fake Slack Web API.
 *
 * - Correctly signed app_mention events POSTed to /slack/events one after the other → their 200;
 *   GET /healthz on the same server is the baseline, interleaved so both see the same background
 *   work (intake creating runs, the outbox writing to Slack).
 * - Mention sent → the fake records the first Web API write for it (reactions.add :eyes:): one
 *   mention at a time, during a paced and an unpaced stream, and for a burst while Slack is slow;
 *   against one reactions.add sent straight to the fake through @slack/web-api.
 */
import { rmSync } from 'node:fs';
import { WebClient } from '@slack/web-api';
import type { RunningService } from '../src/main.js';
import { postSlackEvent } from '../test/fakes/slack-signing.js';
import { appMention, eventCallback } from '../test/fixtures/slack/events.js';
import { SLACK_IDS } from '../test/fixtures/slack/ids.js';
import { profiled } from './profile.js';
import { startSlackWorld } from './slack-world.js';
import { quantile, sleep, type Figure, type Section } from './report.js';

const SECTION = 'Slack latency';
const SECRET = 'bench-slack-signing-secret-0123456789';
const BOT_TOKEN = 'xoxb-0000-1111-bench-token';
const API_KEY = 'bench-ack-run-api-key';
const CHANNEL = SLACK_IDS.channel;
const WARMUP = 20;
const MENTIONS = 500;
const PACED_MENTIONS = 100;
const PACED_RATE = 20;
const BURST = 10;
const SLOW_SLACK_MS = 100;
const SLOW_SINGLES = 5;
const FIRST_WRITE_SAMPLES = 50;
const ACK_TARGET_MS = 3_000;
const FIRST_WRITE_TARGET_MS = 100;

async function timed(fn: () => Promise<Response>): Promise<{ ms: number; status: number }> {
  const start = performance.now();
  const response = await fn();
  await response.arrayBuffer();
  return { ms: performance.now() - start, status: response.status };
}

/** Waits (bounded) until the service's outbox has nothing left to send. */
async function drained(service: RunningService, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await service.store.outbox.counts();
    if (counts.pending === 0 && counts.sending === 0) return true;
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
}

export async function ackLatency(): Promise<Section> {
  const { fake, emulator, service, cwd, events } = await startSlackWorld({ name: 'ack', botToken: BOT_TOKEN, secret: SECRET, apiKey: API_KEY });
  const healthz = `${service.url}/healthz`;
  const mention = () => {
    const event = appMention({ channel: CHANNEL });
    return { ts: event['ts'] as string, send: () => postSlackEvent(events, SECRET, eventCallback(event)) };
  };
  /** Mentions one after the other (at most one per `everyMs`), each optionally after a GET /healthz. */
  const stream = async (count: number, options: { everyMs: number; health: boolean }) => {
    const acks: number[] = [];
    const health: number[] = [];
    const sentAt = new Map<string, number>();
    let failures = 0;
    const begin = Date.now();
    for (let index = 0; index < count; index++) {
      const slot = begin + index * options.everyMs;
      if (Date.now() < slot) await sleep(slot - Date.now());
      if (options.health) {
        const h = await timed(() => fetch(healthz));
        health.push(h.ms);
        if (h.status !== 200) failures++;
      }
      const { ts, send } = mention();
      sentAt.set(ts, Date.now());
      const m = await timed(send);
      acks.push(m.ms);
      if (m.status !== 200) failures++;
    }
    const seconds = (Date.now() - begin) / 1000;
    // Everything owed for these mentions delivered: then :eyes: of each is known.
    const settled = await drained(service, 30_000);
    const drainedAfter = (Date.now() - begin) / 1000;
    const eyesAt = new Map(fake.callsTo('reactions.add').map((call) => [String(call.args['timestamp']), call.at]));
    // In the order the mentions were sent.
    const firstWrite = [...sentAt].flatMap(([ts, sent]) => {
      const at = eyesAt.get(ts);
      return at === undefined ? [] : [at - sent];
    });
    return { acks, health, failures, seconds, rate: count / seconds, settled, drainedAfter, firstWrite };
  };

  try {
    await stream(WARMUP, { everyMs: 0, health: true });
    const full = await profiled('slack-stream', () => stream(MENTIONS, { everyMs: 0, health: true }));
    const paced = await stream(PACED_MENTIONS, { everyMs: 1000 / PACED_RATE, health: false });

    // One mention at a time, each once the previous one's messages (eyes, status message, status
    // edit after the run was created) are all delivered; the baseline is one reactions.add sent
    // straight to the fake through the same Web API client library.
    const client = new WebClient(BOT_TOKEN, { slackApiUrl: fake.url, retryConfig: { retries: 0 } });
    const direct: number[] = [];
    const single: number[] = [];
    let failures = full.failures + paced.failures;
    /** One mention, then everything it owes: returns the time to its first Slack write (:eyes:). */
    const oneMention = async (timeoutMs: number): Promise<number> => {
      const updates = fake.callsTo('chat.update').length;
      const { ts, send } = mention();
      const sent = Date.now();
      const response = await send();
      await response.arrayBuffer();
      if (response.status !== 200) failures++;
      const eyes = await fake.waitForCall('reactions.add', (c) => c.args['timestamp'] === ts, timeoutMs);
      const deadline = Date.now() + timeoutMs;
      while (fake.callsTo('chat.update').length <= updates && Date.now() < deadline) await sleep(5);
      await drained(service, timeoutMs);
      return eyes.at - sent;
    };
    for (let index = 0; index < FIRST_WRITE_SAMPLES; index++) {
      const start = Date.now();
      const seq = fake.calls.length;
      await client.reactions.add({ channel: CHANNEL, timestamp: '1700000000.000100', name: `bench${index}` });
      const call = fake.calls.find((c) => c.seq > seq && c.method === 'reactions.add');
      if (call) direct.push(call.at - start);

      single.push(await oneMention(5_000));
    }

    // Last: Slack answering every call in SLOW_SLACK_MS (as the real Web API may), BURST mentions at once.
    const slowCalls = ['reactions.add', 'chat.postMessage', 'chat.update', 'conversations.info', 'chat.getPermalink', 'users.info'];
    for (const method of slowCalls) fake.failNext(method, { count: (SLOW_SINGLES + BURST) * 2, delayMs: SLOW_SLACK_MS });
    const slowSingle: number[] = [];
    for (let index = 0; index < SLOW_SINGLES; index++) {
      slowSingle.push(await oneMention(10_000));
    }
    const updatesBefore = fake.callsTo('chat.update').length;
    const burst = Array.from({ length: BURST }, () => mention());
    const burstSent = Date.now();
    await profiled('slack-slow-burst', async () => {
      const burstAcks = await Promise.all(burst.map(async ({ send }) => timed(send)));
      failures += burstAcks.filter((ack) => ack.status !== 200).length;
      const burstDeadline = Date.now() + 20_000;
      while (fake.callsTo('chat.update').length < updatesBefore + BURST && Date.now() < burstDeadline) await sleep(20);
    });
    const burstEyes = burst.map(({ ts }) => (fake.callsTo('reactions.add').find((c) => c.args['timestamp'] === ts)?.at ?? Number.NaN) - burstSent);
    const burstDone = (Date.now() - burstSent) / 1000;

    const ms = (name: string, value: number, baseline: number, label: string, target?: Figure['target']): Figure => ({
      section: SECTION,
      name,
      value,
      unit: 'ms',
      baseline: { label, value: baseline },
      ...(target ? { target } : {}),
    });
    const under = (value: number, limit: number) => ({ text: `< ${limit} ms`, met: value < limit });
    const ackP99 = quantile(full.acks, 0.99);
    const singleP95 = quantile(single, 0.95);
    const pacedP95 = quantile(paced.firstWrite, 0.95);
    const fullP95 = quantile(full.firstWrite, 0.95);
    const fullRate = full.rate.toFixed(0);
    return {
      title: SECTION,
      figures: [
        ms('mention → 200, p50', quantile(full.acks, 0.5), quantile(full.health, 0.5), 'GET /healthz p50'),
        ms('mention → 200, p95', quantile(full.acks, 0.95), quantile(full.health, 0.95), 'GET /healthz p95'),
        ms('mention → 200, p99', ackP99, quantile(full.health, 0.99), 'GET /healthz p99', {
          text: `< ${ACK_TARGET_MS} ms, all 200`,
          met: ackP99 < ACK_TARGET_MS && failures === 0,
        }),
        ms('mention → 200, max', Math.max(...full.acks), Math.max(...full.health), 'GET /healthz max'),
        ms('one mention → first Slack write, p50', quantile(single, 0.5), quantile(direct, 0.5), 'direct reactions.add p50'),
        ms('one mention → first Slack write, p95', singleP95, quantile(direct, 0.95), 'direct reactions.add p95', under(singleP95, FIRST_WRITE_TARGET_MS)),
        ms('one mention → first Slack write, max', Math.max(...single), Math.max(...direct), 'direct reactions.add max'),
        ms(`${PACED_RATE}/s stream → first Slack write, p50`, quantile(paced.firstWrite, 0.5), quantile(direct, 0.5), 'direct reactions.add p50'),
        ms(
          `${PACED_RATE}/s stream → first Slack write, p95`,
          pacedP95,
          quantile(direct, 0.95),
          'direct reactions.add p95',
          under(pacedP95, FIRST_WRITE_TARGET_MS),
        ),
        ms(`${fullRate}/s stream → first Slack write, p50`, quantile(full.firstWrite, 0.5), quantile(direct, 0.5), 'direct reactions.add p50'),
        ms(`${fullRate}/s stream → first Slack write, p95`, fullP95, quantile(direct, 0.95), 'direct reactions.add p95', under(fullP95, FIRST_WRITE_TARGET_MS)),
        ms('one mention, Slack slow → first write, p50', quantile(slowSingle, 0.5), SLOW_SLACK_MS, 'one Slack call'),
        ms(
          'one mention, Slack slow → first write, max',
          Math.max(...slowSingle),
          SLOW_SLACK_MS,
          'one Slack call',
          under(Math.max(...slowSingle), FIRST_WRITE_TARGET_MS),
        ),
        ms(`${BURST} at once, Slack slow → first write, p50`, quantile(burstEyes, 0.5), SLOW_SLACK_MS, 'one Slack call'),
        ms(
          `${BURST} at once, Slack slow → first write, max`,
          Math.max(...burstEyes),
          SLOW_SLACK_MS,
          'one Slack call',
          under(Math.max(...burstEyes), FIRST_WRITE_TARGET_MS),
        ),
      ],
      notes: [
        `Acknowledgement: ${MENTIONS} signed app_mention events (distinct ts and event_id) sent one after the other as fast as answered (${fullRate}/s), each right after a GET /healthz to the same server (after ${WARMUP} of each to warm up); ${failures === 0 ? 'every answer was 200' : `${failures} answers were NOT 200`}. The 200 comes once the trigger and the messages owed for it are stored in SQLite; intake (creates the run on the emulator) and the outbox (writes to the fake Slack) run in the background.`,
        `First Slack write = the fake recording reactions.add :eyes: on the mention, from just before the request was sent (Date.now(), 1 ms resolution). "One mention": ${FIRST_WRITE_SAMPLES} mentions, each once everything owed for the previous one was delivered. "Stream": every mention of a stream (${PACED_MENTIONS} paced at ${PACED_RATE}/s; the ${MENTIONS} above, unpaced). Baseline: one reactions.add sent straight to the fake with @slack/web-api's WebClient.`,
        `The outbox delivers up to 8 rows at a time (one per destination at a time); each mention owes 2 rows (received: reactions.add + chat.postMessage; status edit after the run is created: chat.update). The unpaced stream took ${full.seconds.toFixed(1)} s and its last message was delivered ${full.drainedAfter.toFixed(1)} s after it began${full.settled ? '' : ' (NOT drained within 30 s)'}; in that stream the first 50 mentions waited ${quantile(full.firstWrite.slice(0, 50), 0.5).toFixed(0)} ms (p50) for :eyes:, the last 50 ${quantile(full.firstWrite.slice(-50), 0.5).toFixed(0)} ms: a queue growing while the work arrives faster than it is done. The paced stream took ${paced.seconds.toFixed(1)} s / ${paced.drainedAfter.toFixed(1)} s. Everything (load generator, service, fake Slack, emulator) shares this one process.`,
        `Slack slow: the fake answers every Web API call after ${SLOW_SLACK_MS} ms (it records the call when it arrives). ${SLOW_SINGLES} mentions one at a time: :eyes: after ${slowSingle.map((v) => v.toFixed(0)).join(', ')} ms. Then ${BURST} mentions sent at the same moment; :eyes: arrived after ${burstEyes.map((v) => v.toFixed(0)).join(', ')} ms; all their messages were delivered after ${burstDone.toFixed(1)} s. With 8 deliveries at a time, mentions beyond the eighth wait for a free delivery slot (each owes two Slack round trips before its status message).`,
      ],
    };
  } finally {
    await service.stop();
    await emulator.close();
    await fake.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}
