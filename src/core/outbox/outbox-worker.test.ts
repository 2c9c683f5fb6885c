import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { recordingMetrics } from '../../../test/core/recording-metrics.js';
import { RecordingNotifier } from '../../../test/core/recording-notifier.js';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite-store.js';
import { TestClock } from '../ports/clock.js';
import type { OutboxMessage } from '../ports/messages.js';
import { NotifierError, type Delivery, type Notifier } from '../ports/notifier.js';
import { OutboxWorker, safeErrorText, type OutboxWorkerOptions } from './outbox-worker.js';
import { SentResults } from './sent-results.js';
import type { NewOutboxRow, OutboxRepository, Store } from '../ports/store.js';

const A = 'slack:C1:1700.1';
const B = 'slack:C2:1800.2';
const LEASE = 60_000;

let store: SqliteStore;
let clock: TestClock;
let logger: CapturingLogger;
let metrics: ReturnType<typeof recordingMetrics>;

beforeEach(() => {
  store = openSqliteStore({ path: ':memory:' });
  clock = new TestClock();
  logger = new CapturingLogger();
  metrics = recordingMetrics();
});
afterEach(async () => {
  await store.close();
});

function worker(
  notifiers: Notifier[],
  extra: { owner?: string; store?: Store; random?: () => number; options?: OutboxWorkerOptions; sentResults?: SentResults } = {},
): OutboxWorker {
  return new OutboxWorker({
    store: extra.store ?? store,
    notifiers,
    clock,
    logger,
    metrics,
    owner: extra.owner ?? 'worker-1',
    random: extra.random ?? (() => 0),
    ...(extra.options ? { options: extra.options } : {}),
    ...(extra.sentResults ? { sentResults: extra.sentResults } : {}),
  });
}

function row(key: string, destination: string, message: OutboxMessage = { kind: 'notice', text: key }): NewOutboxRow {
  return { key, destination, kind: message.kind, payload: message };
}

async function add(...rows: NewOutboxRow[]): Promise<void> {
  await store.outbox.add(rows, clock.now());
}

const state = async (key: string) => (await store.outbox.getByKey(key))?.state;
const keysOf = (notifier: RecordingNotifier) => notifier.calls.map((call) => call.key);
const rateLimited = (retryAfterMs?: number) =>
  new NotifierError('Slack rate limit', { code: 'rate_limited', retryable: true, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });

describe('OutboxWorker delivery', () => {
  it('delivers rows in id order per destination, records results and lets later rows read earlier ones', async () => {
    const run = { runId: 'r1', title: 'Fix the build', state: 'INPROGRESS', pullRequests: [] };
    const slack = new RecordingNotifier('slack', {
      respond: async (delivery: Delivery, callIndex) => {
        const message = delivery.message;
        const earlier = 'receivedKey' in message && message.receivedKey !== undefined ? await delivery.resultOf(message.receivedKey) : undefined;
        return { ts: `ts-${callIndex}`, earlier: earlier ?? null };
      },
    });
    await add(
      row('a-received', A, { kind: 'received', title: 'Fix the build' }),
      row('b-notice', B),
      row('a-status', A, { kind: 'status', run, receivedKey: 'a-received' }),
      row('b-status', B, { kind: 'status', run, receivedKey: 'no-such-key' }),
      row('a-announce', A, { kind: 'announce', run: { ...run, state: 'SUCCEEDED' }, receivedKey: 'a-received' }),
    );

    expect(await worker([slack]).drain()).toBe(5);

    expect(keysOf(slack)).toEqual(['a-received', 'b-notice', 'a-status', 'b-status', 'a-announce']);
    expect(slack.calls.every((call) => call.attempt === 0)).toBe(true);
    expect(await store.outbox.getByKey('a-received')).toMatchObject({ state: 'sent', result: { ts: 'ts-0', earlier: null }, sentAt: clock.now() });
    expect((await store.outbox.getByKey('a-status'))?.result).toEqual({ ts: 'ts-2', earlier: { ts: 'ts-0', earlier: null } });
    expect((await store.outbox.getByKey('a-announce'))?.result).toEqual({ ts: 'ts-4', earlier: { ts: 'ts-0', earlier: null } });
    expect((await store.outbox.getByKey('b-status'))?.result).toEqual({ ts: 'ts-3', earlier: null }); // unknown key: undefined
    expect(await store.outbox.counts()).toEqual({ pending: 0, sending: 0, sent: 5, failed: 0 });
    expect(metrics.calls.filter((call) => call === 'outboxDelivered(slack)')).toHaveLength(5);
    expect(await worker([slack]).deliverOnce()).toBe(false);
  });

  it('records null when a notifier resolves with nothing, and drain stops at maxRows', async () => {
    const silent: Notifier = { platform: 'slack', deliver: async () => undefined };
    await add(row('a1', A), row('a2', A), row('a3', A));
    const outbox = worker([silent]);
    expect(await outbox.drain(2)).toBe(2);
    expect(await store.outbox.getByKey('a1')).toMatchObject({ state: 'sent', result: null });
    // Marking a2 sent claimed a3 in the same store call: it is this worker's, delivered next.
    expect(await store.outbox.getByKey('a3')).toMatchObject({ state: 'sending', attempts: 1 });
    expect(await outbox.drain()).toBe(1);
    expect(await state('a3')).toBe('sent');
  });

  it('claims the next row in the same store call that marks a row sent, so a backlog costs one call per row', async () => {
    const slack = new RecordingNotifier('slack');
    await add(row('a1', A), row('a2', A), row('b1', B));
    const calls: string[] = [];
    const countingOutbox = Object.assign(Object.create(store.outbox) as OutboxRepository, {
      claimNext: (...args: Parameters<OutboxRepository['claimNext']>) => (calls.push('claimNext'), store.outbox.claimNext(...args)),
      markSentAndClaimNext: (...args: Parameters<OutboxRepository['markSentAndClaimNext']>) => (
        calls.push('markSentAndClaimNext'),
        store.outbox.markSentAndClaimNext(...args)
      ),
    });
    const outbox = worker([slack], { store: Object.assign(Object.create(store) as Store, { outbox: countingOutbox }) });
    expect(await outbox.drain()).toBe(3);
    expect(keysOf(slack)).toEqual(['a1', 'a2', 'b1']);
    expect(calls).toEqual(['claimNext', 'markSentAndClaimNext', 'markSentAndClaimNext', 'markSentAndClaimNext', 'claimNext']);
    expect(await store.outbox.counts()).toEqual({ pending: 0, sending: 0, sent: 3, failed: 0 });
  });

  it('tells a loop there is nothing more once marking its last row sent claimed nothing, without another claim', async () => {
    const slack = new RecordingNotifier('slack');
    await add(row('a1', A), row('b1', B));
    const claims: string[] = [];
    const countingOutbox = Object.assign(Object.create(store.outbox) as OutboxRepository, {
      claimNext: (...args: Parameters<OutboxRepository['claimNext']>) => (claims.push('claimNext'), store.outbox.claimNext(...args)),
    });
    const outbox = worker([slack], { store: Object.assign(Object.create(store) as Store, { outbox: countingOutbox }) });
    // a1, then b1 (claimed when a1 was marked sent): more may be due after the first.
    expect(outbox.hasWorkWaiting).toBe(false);
    expect(await outbox.deliverNext()).toBe(true);
    // b1 was claimed for the next pass, its lease renewed while that pass waits at the gate.
    expect(outbox.hasWorkWaiting).toBe(true);
    expect(await outbox.deliverNext()).toBe(false);
    expect(outbox.hasWorkWaiting).toBe(false);
    expect(keysOf(slack)).toEqual(['a1', 'b1']);
    expect(claims).toEqual(['claimNext']);
    // A row stored later is found by the next pass its wake-up starts.
    await add(row('a2', A));
    expect(await outbox.deliverNext()).toBe(false);
    expect(keysOf(slack)).toEqual(['a1', 'b1', 'a2']);
    expect(await outbox.deliverNext()).toBe(false);
    expect(claims).toEqual(['claimNext', 'claimNext', 'claimNext']);
  });

  it('reads an earlier row’s result from what the process’s workers delivered, and from the store for a result it did not deliver', async () => {
    const slack = new RecordingNotifier('slack', {
      respond: async (delivery: Delivery, callIndex) => {
        const message = delivery.message;
        const earlier = 'receivedKey' in message && message.receivedKey !== undefined ? await delivery.resultOf(message.receivedKey) : undefined;
        if (earlier && typeof earlier === 'object') (earlier as { touched?: boolean }).touched = true; // a notifier changing it changes nothing for others
        return { ts: `ts-${callIndex}`, earlier: earlier ?? null };
      },
    });
    const run = { runId: 'r1', title: 'Fix the build', state: 'INPROGRESS', pullRequests: [] };
    await add(row('a-received', A, { kind: 'received', title: 'Fix the build' }));
    await store.outbox.markSent((await store.outbox.claimNext('other-replica', clock.now(), LEASE))!.id, 'other-replica', { ts: 'elsewhere' }, clock.now());
    await add(row('b-received', B, { kind: 'received', title: 'Fix the build' }));
    await add(row('a-status', A, { kind: 'status', run, receivedKey: 'a-received' }));
    await add(
      row('b-status', B, { kind: 'status', run, receivedKey: 'b-received' }),
      row('b-announce', B, { kind: 'announce', run, receivedKey: 'b-received' }),
    );

    const reads: string[] = [];
    const readingOutbox = Object.assign(Object.create(store.outbox) as OutboxRepository, {
      getByKey: (key: string) => (reads.push(key), store.outbox.getByKey(key)),
    });
    const sentResults = new SentResults();
    const first = worker([slack], { owner: 'w1', sentResults, store: Object.assign(Object.create(store) as Store, { outbox: readingOutbox }) });
    const second = worker([slack], { owner: 'w2', sentResults, store: Object.assign(Object.create(store) as Store, { outbox: readingOutbox }) });
    expect(await first.deliverOnce()).toBe(true); // b-received, by w1; it claims a-status next
    expect(await second.drain()).toBe(2); // b-status and b-announce, by w2: b-received's ts from w1's delivery
    expect(await first.drain()).toBe(1); // a-status: a-received was sent by another replica
    expect(reads).toEqual(['a-received']);
    expect((await store.outbox.getByKey('b-status'))?.result).toEqual({ ts: 'ts-1', earlier: { ts: 'ts-0', earlier: null, touched: true } });
    expect((await store.outbox.getByKey('b-announce'))?.result).toEqual({ ts: 'ts-2', earlier: { ts: 'ts-0', earlier: null, touched: true } });
    expect((await store.outbox.getByKey('a-status'))?.result).toEqual({ ts: 'ts-3', earlier: { ts: 'elsewhere', touched: true } });
  });

  it('refuses two notifiers for one platform', () => {
    expect(() => worker([new RecordingNotifier('slack'), new RecordingNotifier('slack')])).toThrow(/two notifiers for platform "slack"/);
  });
});

describe('OutboxWorker failures', () => {
  it('waits out retryAfterMs, holding the destination back while other destinations flow', async () => {
    const slack = new RecordingNotifier('slack', {
      failWith: (delivery, callIndex) => (delivery.key === 'a1' && callIndex === 0 ? rateLimited(30_000) : undefined),
    });
    await add(row('a1', A), row('a2', A), row('b1', B), row('b2', B));
    const outbox = worker([slack]);
    const t0 = clock.now();

    expect(await outbox.deliverOnce()).toBe(true);
    expect(await store.outbox.getByKey('a1')).toMatchObject({
      state: 'pending',
      attempts: 1,
      nextAttemptAt: t0 + 30_000, // retryAfter beats the 1 s backoff
      lastError: 'rate_limited: Slack rate limit',
      leaseOwner: null,
    });
    expect(await outbox.drain()).toBe(2); // b1, b2 flow; a2 waits behind a1
    expect(await state('a2')).toBe('pending');

    await clock.advance(29_999);
    expect(await outbox.deliverOnce()).toBe(false);
    await clock.advance(1);
    expect(await outbox.drain()).toBe(2);

    expect(keysOf(slack)).toEqual(['a1', 'b1', 'b2', 'a1', 'a2']);
    expect(slack.calls[3]?.attempt).toBe(1);
    expect(await store.outbox.counts()).toEqual({ pending: 0, sending: 0, sent: 4, failed: 0 });
    expect(metrics.calls).toContain('outboxRetried(slack)');
    expect(logger.at('info').find((line) => line.fields['outboxKey'] === 'a1')?.fields).toMatchObject({ code: 'rate_limited', delayMs: 30_000 });
  });

  it('fails a row on a non-retryable error and lets the next row of the destination proceed', async () => {
    const gone = new NotifierError('channel not found', { code: 'channel_not_found', retryable: false });
    const slack = new RecordingNotifier('slack', { failWith: (delivery) => (delivery.key === 'a1' ? gone : undefined) });
    await add(row('a1', A), row('a2', A));

    expect(await worker([slack]).drain()).toBe(2);

    expect(await store.outbox.getByKey('a1')).toMatchObject({ state: 'failed', attempts: 1, lastError: 'channel_not_found: channel not found' });
    expect(await state('a2')).toBe('sent');
    expect(keysOf(slack)).toEqual(['a1', 'a2']);
    expect(logger.at('warn')).toEqual([expect.objectContaining({ fields: expect.objectContaining({ outboxKey: 'a1', code: 'channel_not_found' }) })]);
    expect(metrics.calls).toEqual(['outboxFailed(slack)', 'outboxDelivered(slack)']);
  });

  it.each([
    { random: 0, delays: [1_000, 2_000, 4_000, 5_000, 5_000] },
    { random: 0.5, delays: [750, 1_500, 3_000, 3_750, 3_750] }, // jitter: between half and all of it
  ])('retries an unknown error with growing backoff (random pinned to $random)', async ({ random, delays }) => {
    const slack = new RecordingNotifier('slack', { failWith: () => new TypeError('fetch failed') });
    await add(row('a1', A));
    const outbox = worker([slack], { random: () => random, options: { baseBackoffMs: 1_000, maxBackoffMs: 5_000 } });

    const seen: number[] = [];
    for (let attempt = 0; attempt < delays.length; attempt++) {
      const before = clock.now();
      expect(await outbox.deliverOnce()).toBe(true);
      const stored = await store.outbox.getByKey('a1');
      expect(stored).toMatchObject({ state: 'pending', attempts: attempt + 1, lastError: 'TypeError: fetch failed' });
      seen.push(stored!.nextAttemptAt - before);
      await clock.advance(stored!.nextAttemptAt - before);
    }
    expect(seen).toEqual(delays);
    expect(slack.calls.map((call) => call.attempt)).toEqual([0, 1, 2, 3, 4]);
    expect(logger.at('warn')).toHaveLength(delays.length);
  });

  it('keeps secrets out of stored and logged error texts', async () => {
    const leaky = new Error('request failed', { cause: new Error('Authorization: Bearer xoxb-secret') });
    // Code we call may throw anything, not only an Error.
    const notAnError: unknown = 'xoxb-secret in a string';
    let call = 0;
    const slack: Notifier = {
      platform: 'slack',
      deliver: async () => {
        call++;
        if (call === 1) throw leaky;
        if (call === 2) throw notAnError;
        throw new Error('x'.repeat(2_000));
      },
    };
    await add(row('a1', A));
    const outbox = worker([slack]);

    await outbox.deliverOnce();
    expect((await store.outbox.getByKey('a1'))?.lastError).toBe('Error: request failed');
    await clock.advance(10_000);
    await outbox.deliverOnce();
    expect((await store.outbox.getByKey('a1'))?.lastError).toBe('non-error value thrown (string)');
    await clock.advance(10_000);
    await outbox.deliverOnce();
    expect((await store.outbox.getByKey('a1'))?.lastError).toHaveLength(500);

    expect(JSON.stringify(logger.lines)).not.toContain('xoxb');
    expect(safeErrorText(new NotifierError('m', { code: 'c', retryable: true }))).toBe('c: m');
  });

  it('gives a failing row up after giveUpAfterMs and logs it as an error', async () => {
    const slack = new RecordingNotifier('slack', { failWith: (delivery) => (delivery.key === 'a1' ? rateLimited() : undefined) });
    await add(row('a1', A), row('a2', A));
    const outbox = worker([slack], { options: { giveUpAfterMs: 10_000 } });

    expect(await outbox.drain()).toBe(1); // a1 rescheduled, a2 waits
    await clock.advance(9_999);
    expect(await outbox.drain()).toBe(1); // still young: rescheduled again
    expect(await state('a1')).toBe('pending');
    await clock.advance(5_000);
    expect(await outbox.drain()).toBe(2); // too old: given up, and a2 goes out

    expect(await store.outbox.getByKey('a1')).toMatchObject({ state: 'failed', attempts: 3, lastError: 'rate_limited: Slack rate limit' });
    expect(await state('a2')).toBe('sent');
    expect(logger.at('error')).toEqual([
      expect.objectContaining({ msg: expect.stringMatching(/given up/), fields: expect.objectContaining({ outboxKey: 'a1' }) }),
    ]);
    expect(metrics.calls).toEqual(['outboxRetried(slack)', 'outboxRetried(slack)', 'outboxFailed(slack)', 'outboxDelivered(slack)']);
  });

  it('fails rows of a platform without a notifier at once, as a configuration error', async () => {
    const slack = new RecordingNotifier('slack');
    await add(row('l1', 'linear:ENG-1'), row('a1', A));

    expect(await worker([slack]).drain()).toBe(2);

    expect(await store.outbox.getByKey('l1')).toMatchObject({ state: 'failed', attempts: 1, lastError: 'no notifier for platform "linear"' });
    expect(keysOf(slack)).toEqual(['a1']);
    expect(logger.at('error')).toEqual([expect.objectContaining({ fields: expect.objectContaining({ outboxKey: 'l1', platform: 'linear' }) })]);
    expect(metrics.calls).toContain('outboxFailed(linear)');
  });
});

describe('OutboxWorker across workers', () => {
  it('re-delivers with the SAME key when a worker died between delivering and markSent', async () => {
    const slack = new RecordingNotifier('slack');
    await add(row('a1', A));
    // Worker A "dies" right after the notifier succeeded: its markSent never reaches the database.
    const dyingOutbox = Object.assign(Object.create(store.outbox) as OutboxRepository, {
      markSent: async () => {
        throw new Error('process killed');
      },
      markSentAndClaimNext: async () => {
        throw new Error('process killed');
      },
    });
    const dyingStore = Object.assign(Object.create(store) as Store, { outbox: dyingOutbox });
    const first = worker([slack], { owner: 'worker-A', store: dyingStore });
    const second = worker([slack], { owner: 'worker-B' });

    await expect(first.deliverOnce()).rejects.toThrow('process killed');
    expect(await store.outbox.getByKey('a1')).toMatchObject({ state: 'sending', leaseOwner: 'worker-A' });
    expect(await second.deliverOnce()).toBe(false); // A's lease still holds
    await clock.advance(LEASE - 1);
    expect(await second.deliverOnce()).toBe(false);
    await clock.advance(1);
    expect(await second.deliverOnce()).toBe(true);

    // The notifier saw the same key twice: that is why notifiers must use it as an idempotency key.
    expect(slack.calls).toHaveLength(2);
    expect(slack.calls[1]?.key).toBe(slack.calls[0]?.key);
    expect(slack.calls.map((call) => call.attempt)).toEqual([0, 1]);
    expect(await store.outbox.getByKey('a1')).toMatchObject({ state: 'sent', attempts: 2, result: { id: 'slack-1' } });
    expect(await store.outbox.markSent(1, 'worker-A', { late: true }, clock.now())).toBe(false);
  });

  it('renews its lease while a slow delivery lasts: no other worker delivers the row again', async () => {
    let calls = 0;
    const slow: Notifier = {
      platform: 'slack',
      deliver: async () => {
        calls++;
        // The delivery outlives its lease twice over; another worker looks for work meanwhile.
        for (let step = 0; step < 6; step++) await clock.advance(LEASE / 3);
        expect(await second.deliverOnce()).toBe(false);
        return { call: calls };
      },
    };
    await add(row('a1', A));
    const first = worker([slow], { owner: 'worker-A' });
    const second = worker([slow], { owner: 'worker-B' });
    expect(await first.deliverOnce()).toBe(true);
    expect(calls).toBe(1);
    expect(await store.outbox.getByKey('a1')).toMatchObject({ state: 'sent', attempts: 1, result: { call: 1 } });
  });

  it('keeps the lease of the row claimed with its last delivery until that row is delivered, and gives it back when stopped', async () => {
    const slack = new RecordingNotifier('slack');
    await add(row('a1', A), row('a2', A), row('a3', A));
    const first = worker([slack], { owner: 'worker-A' });
    const second = worker([slack], { owner: 'worker-B' });
    expect(await first.deliverOnce()).toBe(true);
    // a2 was claimed with a1's delivery; its pass waits (the work gate) for two leases and more.
    for (let step = 0; step < 7; step++) await clock.advance(LEASE / 3);
    expect(await second.deliverOnce()).toBe(false);
    expect(await first.deliverOnce()).toBe(true);
    expect(keysOf(slack)).toEqual(['a1', 'a2']);
    // a3 was claimed with a2's delivery: the worker stops before its pass and gives it back at once.
    await first.letGo();
    expect(first.hasWorkWaiting).toBe(false);
    expect(await store.outbox.getByKey('a3')).toMatchObject({ state: 'pending', leaseOwner: null });
    expect(await second.deliverOnce()).toBe(true);
    expect(keysOf(slack)).toEqual(['a1', 'a2', 'a3']);
    // The renewal stopped with the giving back: nothing more is written for the first worker.
    await clock.advance(2 * LEASE);
    expect(await store.outbox.getByKey('a3')).toMatchObject({ state: 'sent', attempts: 2 });
  });

  it('steps back quietly when its lease was lost during a slow delivery (its renewals could not reach the store)', async () => {
    let calls = 0;
    const slow: Notifier = {
      platform: 'slack',
      deliver: async () => {
        calls++;
        if (calls === 1) {
          // The first delivery outlives its lease; another worker takes the row over meanwhile.
          await clock.advance(LEASE);
          expect(await second.deliverOnce()).toBe(true);
        }
        return { call: calls };
      },
    };
    await add(row('a1', A));
    const unreachable = Object.assign(Object.create(store.outbox) as OutboxRepository, {
      extendLease: () => Promise.reject(new Error('connection terminated')),
    });
    const first = worker([slow], { owner: 'worker-A', store: Object.assign(Object.create(store) as Store, { outbox: unreachable }) });
    const second = worker([slow], { owner: 'worker-B' });

    expect(await first.deliverOnce()).toBe(true);

    expect(await store.outbox.getByKey('a1')).toMatchObject({ state: 'sent', result: { call: 2 } });
    expect(logger.at('debug')).toEqual([expect.objectContaining({ fields: expect.objectContaining({ outboxKey: 'a1', action: 'markSent' }) })]);
    expect(logger.at('warn').map((line) => line.msg)).toContain('could not renew the lease on a row being delivered');
  });

  it('two workers draining one store concurrently deliver every row exactly once, in order per destination', async () => {
    const slack = new RecordingNotifier('slack');
    const destinations = [A, B, 'slack:C3:1900.3'];
    const rows: NewOutboxRow[] = [];
    for (let index = 0; index < 30; index++) rows.push(row(`m${index}`, destinations[index % 3]!));
    await add(...rows);
    const one = worker([slack], { owner: 'worker-A' });
    const two = worker([slack], { owner: 'worker-B' });

    const handled = await Promise.all([one.drain(), two.drain()]);
    // A worker may stop early when the only due work is another worker's destination; finish up.
    const rest = (await one.drain()) + (await two.drain());

    expect(handled[0] + handled[1] + rest).toBe(30);
    expect(handled[0]).toBeGreaterThan(0);
    expect(handled[1]).toBeGreaterThan(0);
    expect([...keysOf(slack)].sort()).toEqual(rows.map((r) => r.key).sort());
    expect(new Set(keysOf(slack)).size).toBe(30);
    for (const destination of destinations) {
      const order = slack.calls.filter((call) => call.destination === destination).map((call) => Number(call.key.slice(1)));
      expect(order).toEqual([...order].sort((x, y) => x - y));
    }
    expect(await store.outbox.counts()).toEqual({ pending: 0, sending: 0, sent: 30, failed: 0 });
  });
});
