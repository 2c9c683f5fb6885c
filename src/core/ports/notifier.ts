import type { OutboxMessage } from './messages.js';

/** One outbox row handed to a notifier. */
export interface Delivery {
  /** The row's unique key: notifiers that support idempotency keys send it along. */
  key: string;
  destination: string;
  message: OutboxMessage;
  /** How many times delivery was tried before (0 on the first try). */
  attempt: number;
  /** What an earlier, already delivered row reported (e.g. the status message's ts), by its key. */
  resultOf(key: string): Promise<unknown>;
}

/**
 * The port through which the core tells people things. A notifier serves the destinations whose
 * prefix it names (a surface's name, `log:`). It must be safe to call twice with the same key:
 * where the platform supports an idempotency key it uses `Delivery.key`.
 */
export interface Notifier {
  /** Destination prefix this notifier serves, e.g. a surface's name. */
  readonly platform: string;
  /** Sends the message; resolves with what later rows may need (JSON), or rejects with a NotifierError. */
  deliver(delivery: Delivery): Promise<unknown>;
}

/** A delivery failure, typed: branch on `retryable` and `code`, never on message text. */
export class NotifierError extends Error {
  override readonly name = 'NotifierError';
  readonly code: string;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  constructor(message: string, init: { code: string; retryable: boolean; retryAfterMs?: number; cause?: unknown }) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/**
 * The error for a message whose kind a notifier's exhaustive `switch` does not know (a row written by a
 * newer version): not retryable, and naming at most 40 characters of the kind it was given.
 */
export function unknownMessageKind(message: never): NotifierError {
  const kind = String((message as { kind?: unknown }).kind).slice(0, 40);
  return new NotifierError(`unknown message kind ${kind}`, { code: 'unknown_kind', retryable: false });
}

/** The platform part of a destination (`<surface>:C1:1700.1` → `<surface>`). */
export function platformOf(destination: string): string {
  const colon = destination.indexOf(':');
  return colon === -1 ? destination : destination.slice(0, colon);
}

/**
 * Which destinations show a run as a live session (a working indicator and a stop control): only
 * there is a change of the run's session phase owed (`session` rows). The edge that owns such places
 * says which they are; without one, no session rows are owed anywhere.
 */
export type SessionPlaces = (destination: string) => boolean;
