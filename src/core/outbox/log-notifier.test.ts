import { describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../../test/core/capturing-logger.js';
import { openSqliteStore } from '../../store/sqlite-store.js';
import { TestClock } from '../ports/clock.js';
import { LogNotifier } from './log-notifier.js';
import type { OutboxMessage } from '../ports/messages.js';
import type { Delivery } from '../ports/notifier.js';
import { OutboxWorker } from './outbox-worker.js';

const delivery = (message: OutboxMessage, key = 'run:run_1:2:log:cli:announce'): Delivery => ({
  key,
  destination: 'log:cli',
  message,
  attempt: 0,
  resultOf: async () => undefined,
});

describe('LogNotifier', () => {
  it('writes one info line with the outbox key, run fields and the rendered text', async () => {
    const logger = new CapturingLogger();
    const notifier = new LogNotifier(logger);
    const message: OutboxMessage = {
      kind: 'announce',
      run: { runId: 'run_1', title: 'Nightly deps', state: 'SUCCEEDED', pullRequests: ['https://github.com/o/r/pull/7'] },
      receivedKey: 'received:sched:log:cli',
    };

    expect(notifier.platform).toBe('log');
    expect(await notifier.deliver(delivery(message))).toEqual({ logged: true });

    expect(logger.lines).toEqual([
      {
        level: 'info',
        fields: { destination: 'log:cli', kind: 'announce', runId: 'run_1', state: 'SUCCEEDED', outboxKey: 'run:run_1:2:log:cli:announce' },
        msg: '✅ Done: Nightly deps\nPull request: https://github.com/o/r/pull/7',
      },
    ]);
  });

  it.each<{ message: OutboxMessage; fields: Record<string, unknown> }>([
    { message: { kind: 'received', title: 'Nightly deps' }, fields: { kind: 'received' } },
    { message: { kind: 'followup_accepted', runId: 'run_9' }, fields: { kind: 'followup_accepted', runId: 'run_9' } },
    { message: { kind: 'notice', text: 'hello' }, fields: { kind: 'notice' } },
  ])('names the run only when the message is about one ($message.kind)', async ({ message, fields }) => {
    const logger = new CapturingLogger();
    await new LogNotifier(logger).deliver(delivery(message, 'k1'));
    expect(logger.lines[0]?.fields).toEqual({ destination: 'log:cli', outboxKey: 'k1', ...fields });
  });

  it('serves log: destinations through the outbox worker', async () => {
    const store = openSqliteStore({ path: ':memory:' });
    const clock = new TestClock();
    const logger = new CapturingLogger();
    await store.outbox.add(
      [{ key: 'n1', destination: 'log:schedule:nightly', kind: 'notice', payload: { kind: 'notice', text: 'Skipped: previous run still going' } }],
      clock.now(),
    );

    const worker = new OutboxWorker({ store, notifiers: [new LogNotifier(logger.child({ notifier: 'log' }))], clock, logger, owner: 'w1' });
    expect(await worker.drain()).toBe(1);

    expect(await store.outbox.getByKey('n1')).toMatchObject({ state: 'sent', result: { logged: true } });
    expect(logger.at('info')).toEqual([
      expect.objectContaining({
        msg: 'Skipped: previous run still going',
        fields: expect.objectContaining({ outboxKey: 'n1', destination: 'log:schedule:nightly' }),
      }),
    ]);
    await store.close();
  });
});
