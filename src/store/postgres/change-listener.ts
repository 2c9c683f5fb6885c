/**
 * Tells every replica when another stores work: the repositories `pg_notify` this channel in the
 * statement that adds a trigger or an outbox row (PostgreSQL delivers it on commit, to every session
 * listening), and each store keeps one connection that LISTENs. Polling stays the safety net: a
 * notification lost while the connection is down costs at most one idle interval.
 *
 * The payload is the change (`triggers`, `outbox`), followed by the writing store's signature while
 * that store has listeners (`outbox 3f9c…`): its own process works it, and the others can tell
 * (`ChangeOrigin`, docs/postgresql.md "Wake-ups between replicas"). A store's own listeners are told
 * of its writes as soon as the statement returns (`wrote`), not again when its notification comes back.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ChangeOrigin, StoreChange } from '../../core/ports/store.js';
import { TYPES } from './pg-sql.js';

export const CHANGES_CHANNEL = 'agent_bridge_changes';

/** The `pg_notify` payload of a change: `@writer` is the writing store's `signature()` (NULL: none). */
export const changePayload = (change: StoreChange) => `concat_ws(' ', '${change}', @writer::text)`;

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

type Listener = (change: StoreChange, origin: ChangeOrigin) => void;

/** What the repositories that notify need: the signature for the payload, and to tell this store's listeners. */
export interface ChangeSigner {
  /** The `@writer` parameter of `changePayload`. */
  signature(): string | null;
  /** Called once a statement that notified `change` has returned (so it is committed). */
  wrote(change: StoreChange): void;
}

export class ChangeListener implements ChangeSigner {
  private readonly listeners = new Set<Listener>();
  /** Names this store in the notifications of what it writes (random: only the listeners compare it). */
  private readonly id = randomBytes(8).toString('hex');
  private client: pg.Client | undefined;
  private closed = false;
  private retryMs = RECONNECT_MIN_MS;
  private timer: NodeJS.Timeout | undefined;
  private connecting: Promise<void> | undefined;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly onProblem: (error: unknown) => void = () => {},
  ) {}

  /** Calls `listener` on every change any replica commits; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    if (!this.client && !this.connecting) this.connecting = this.connect();
    return () => this.listeners.delete(listener);
  }

  /**
   * What this store's writes sign their notifications with: its id while something here listens (this
   * process then works what it stores), else null — a plain notification that every replica acts on.
   */
  signature(): string | null {
    return this.listeners.size > 0 ? this.id : null;
  }

  /** Tells this store's listeners at once, rather than when the notification comes back round. */
  wrote(change: StoreChange): void {
    for (const listener of this.listeners) listener(change, 'self');
  }

  /** Resolves once the LISTEN is in place (tests; the service does not wait). */
  async ready(): Promise<void> {
    await this.connecting;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ ...this.config, types: TYPES });
    client.on('notification', (message) => {
      if (message.channel !== CHANGES_CHANNEL) return;
      const [what, writer] = (message.payload ?? '').split(' ');
      // Our own: told by `wrote` already.
      if (writer === this.id) return;
      const change: StoreChange = what === 'outbox' ? 'outbox' : 'triggers';
      const origin: ChangeOrigin = writer === undefined ? 'unknown' : 'replica';
      for (const listener of this.listeners) listener(change, origin);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, undefined));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
      if (this.closed) {
        await client.end().catch(() => {});
        return;
      }
      this.client = client;
      this.retryMs = RECONNECT_MIN_MS;
      // Whatever was stored while we were not listening is found by polling; wake once to look now.
      for (const listener of this.listeners) listener('triggers', 'unknown');
    } catch (error) {
      this.lost(client, error);
    } finally {
      this.connecting = undefined;
    }
  }

  private lost(client: pg.Client, error: unknown): void {
    if (error !== undefined) this.onProblem(error);
    if (this.client === client) this.client = undefined;
    client.removeAllListeners('end');
    client.end().catch(() => {});
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.closed && !this.client && !this.connecting) this.connecting = this.connect();
    }, this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
  }
}
