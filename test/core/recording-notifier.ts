import type { Delivery, Notifier } from '../../src/core/ports/notifier.js';

/** What a `RecordingNotifier` saw of one call (the delivery minus its `resultOf` function). */
export interface RecordedDelivery {
  key: string;
  destination: string;
  message: Delivery['message'];
  attempt: number;
  /** 0-based index of the call on this notifier, counting failed calls too. */
  callIndex: number;
  /** Whether the call was made to fail. */
  failed: boolean;
}

export interface RecordingNotifierOptions {
  /** Return an error to make the call reject with it (or throw from here); undefined lets it succeed. */
  failWith?: (delivery: Delivery, callIndex: number) => Error | undefined;
  /** What a successful call resolves with; default `{ id: '<platform>-<callIndex>' }`. */
  respond?: (delivery: Delivery, callIndex: number) => unknown;
}

/**
 * A notifier double for the outbox: records every call in order, can fail on demand. Each call first
 * yields to the event loop, so several workers sharing it really interleave.
 */
export class RecordingNotifier implements Notifier {
  readonly calls: RecordedDelivery[] = [];

  constructor(
    readonly platform: string,
    private readonly options: RecordingNotifierOptions = {},
  ) {}

  /** The calls that succeeded, in order. */
  get delivered(): RecordedDelivery[] {
    return this.calls.filter((call) => !call.failed);
  }

  async deliver(delivery: Delivery): Promise<unknown> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const callIndex = this.calls.length;
    const record: RecordedDelivery = {
      key: delivery.key,
      destination: delivery.destination,
      message: delivery.message,
      attempt: delivery.attempt,
      callIndex,
      failed: false,
    };
    this.calls.push(record);
    const error = this.options.failWith?.(delivery, callIndex);
    if (error) {
      record.failed = true;
      throw error;
    }
    return this.options.respond ? await this.options.respond(delivery, callIndex) : { id: `${this.platform}-${callIndex}` };
  }
}
