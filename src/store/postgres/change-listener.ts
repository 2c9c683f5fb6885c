/**
 * Wakes every replica when another stores work: the repositories `pg_notify` this channel in the
 * transaction that adds a trigger or an outbox row (PostgreSQL delivers it on commit, to every session
 * listening, ours included), and each store keeps one connection that LISTENs. Polling stays the
 * safety net: a notification lost while the connection is down costs at most one idle interval.
 */
import pg from 'pg';
import type { StoreChange } from '../../core/ports/store.js';
import { TYPES } from './pg-sql.js';

export const CHANGES_CHANNEL = 'agent_bridge_changes';

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

export class ChangeListener {
  private readonly listeners = new Set<(change: StoreChange) => void>();
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
  subscribe(listener: (change: StoreChange) => void): () => void {
    this.listeners.add(listener);
    if (!this.client && !this.connecting) this.connecting = this.connect();
    return () => this.listeners.delete(listener);
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
      const change: StoreChange = message.payload === 'outbox' ? 'outbox' : 'triggers';
      for (const listener of this.listeners) listener(change);
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
      for (const listener of this.listeners) listener('triggers');
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
