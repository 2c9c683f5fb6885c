/**
 * The `RunKeys` port over the stored personal keys: picks the service's key or the asker's
 * own by `people.attribution`, and keeps one run API client per person's key in a small bounded cache
 * (an undici pool each), replaced as soon as the stored key changes (re-connected or rotated).
 */
import type { Attribution } from '../config-kit/value-sets.js';
import type { AgentRuns } from '../core/ports/agent-runs.js';
import type { Clock } from '../core/ports/clock.js';
import type { PersonIdentity } from '../core/ports/identity.js';
import type { KeyChoice, RunKeys } from '../core/ports/people.js';
import type { PersonKeyRepository, SettingRepository } from '../core/ports/store.js';
import type { Requester } from '../core/ports/triggers.js';
import type { KeyBox } from './key-box.js';
import { markKeyRefused } from './key-refusals.js';

/** A run API client under one key, and how to close it. */
export type RunsClientForKey = (apiKey: string) => { runs: AgentRuns; close(): Promise<void> };

export interface PersonalRunKeysDeps {
  /** Under `service` every request uses the service key; the per-person clients still watch runs created with one. */
  attribution: Attribution;
  /** The service's own client (`AGENT_API_KEY`). */
  service: AgentRuns;
  keys: PersonKeyRepository;
  box: KeyBox;
  settings: SettingRepository;
  clock: Clock;
  clientFor: RunsClientForKey;
  /** The person behind a requester (`people/identity.ts`). */
  identity: PersonIdentity;
  /** Words for "how to connect a key", for messages. */
  howToConnect: string;
  /** Clients kept at once; the least recently used beyond it is closed. Default 64. */
  maxClients?: number;
  /** How long a replaced or evicted client stays open for calls already holding it. Default 60 s. */
  retireAfterMs?: number;
}

interface CachedClient {
  /** The sealed text the client was built from: another one means the key changed. */
  sealed: string;
  runs: AgentRuns;
  close(): Promise<void>;
}

/** `RunKeys` over the stored personal keys, whatever `people.attribution` says. Call `close()` at shutdown. */
export class PersonalRunKeys implements RunKeys {
  // A Map keeps insertion order: re-inserting on use makes its first entry the least recently used.
  private readonly clients = new Map<string, CachedClient>();
  private readonly retiring = new Set<CachedClient>();
  private readonly maxClients: number;

  constructor(private readonly deps: PersonalRunKeysDeps) {
    this.maxClients = deps.maxClients ?? 64;
  }

  async choose(requester: Requester | undefined): Promise<KeyChoice> {
    // Schedules and the CLI have no person: they are the operator's, under the service key.
    if (!requester || this.deps.attribution === 'service') return { kind: 'use', runs: this.deps.service };
    const personId = await this.deps.identity.personFor(requester);
    const runs = personId === undefined ? undefined : await this.forOwner(personId);
    if (runs && personId !== undefined) return { kind: 'use', runs, personalKeyOwner: personId, personId };
    if (this.deps.attribution === 'personal_required') return { kind: 'refused', reason: 'no_key', ...(personId !== undefined && { personId }) };
    return { kind: 'use', runs: this.deps.service, ...(personId !== undefined && { personId }) };
  }

  async forOwner(personId: string): Promise<AgentRuns | undefined> {
    const record = await this.deps.keys.get(personId);
    // Everything below is synchronous: two calls racing on one person cannot build two clients.
    const cached = this.clients.get(personId);
    if (!record) {
      if (cached) this.retire(personId, cached);
      return undefined;
    }
    if (cached?.sealed === record.sealed) {
      this.clients.delete(personId);
      this.clients.set(personId, cached);
      return cached.runs;
    }
    if (cached) this.retire(personId, cached);
    const client = this.deps.clientFor(this.deps.box.open(personId, record.sealed));
    this.clients.set(personId, { sealed: record.sealed, ...client });
    for (const [id, oldest] of this.clients) {
      if (this.clients.size <= this.maxClients) break;
      this.retire(id, oldest);
    }
    return client.runs;
  }

  used(personId: string): Promise<void> {
    return this.deps.keys.touch(personId, this.deps.clock.now());
  }

  async refused(personId: string, status: number): Promise<void> {
    await markKeyRefused(this.deps.settings, personId, { at: this.deps.clock.now(), status });
  }

  howToConnect(): string {
    return this.deps.howToConnect;
  }

  /** Clients open now (tests). */
  get openClients(): number {
    return this.clients.size + this.retiring.size;
  }

  /** Closes every client (shutdown). */
  async close(): Promise<void> {
    const all = [...this.clients.values(), ...this.retiring];
    this.clients.clear();
    this.retiring.clear();
    await Promise.allSettled(all.map((client) => client.close()));
  }

  /**
   * Takes a client out of the cache and closes it a little later: a request that picked it a moment
   * ago (a start gathers the thread's context between choosing the key and creating the run) still
   * goes out with it.
   */
  private retire(personId: string, client: CachedClient): void {
    if (this.clients.get(personId) === client) this.clients.delete(personId);
    this.retiring.add(client);
    this.deps.clock.setTimer(() => {
      if (!this.retiring.delete(client)) return;
      void client.close().catch(() => undefined);
    }, this.deps.retireAfterMs ?? 60_000);
  }
}
