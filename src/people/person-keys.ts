/**
 * People's personal API keys over the store: connect, open for a run, disconnect, and what
 * may be shown (last 4, when connected, last used). The raw key only leaves here to go to the run API.
 */
import type { PersonKeyRecord, PersonKeyRepository } from '../core/ports/store.js';
import { StartupError } from '../core/startup-error.js';
import { KeyBox, KeyBoxError, lastFour } from './key-box.js';

/** What people are told about their key: never the key, only its last 4 characters. */
export type KeySummary = Omit<PersonKeyRecord, 'sealed'>;

export class PersonKeys {
  constructor(
    private readonly repository: PersonKeyRepository,
    private readonly box: KeyBox,
  ) {}

  /** Stores the person's key sealed (replacing one they had); returns what may be shown of it. */
  async connect(personId: string, apiKey: string, now: number): Promise<KeySummary> {
    const record = { personId, sealed: this.box.seal(personId, apiKey), lastFour: lastFour(apiKey), connectedAt: now };
    await this.repository.put(record);
    return { personId, lastFour: record.lastFour, connectedAt: now, lastUsedAt: null };
  }

  /** The person's key in the clear, for a call to the run API; undefined when none is connected. */
  async open(personId: string): Promise<string | undefined> {
    const record = await this.repository.get(personId);
    return record ? this.box.open(personId, record.sealed) : undefined;
  }

  /** Records that the person's key was used for a run. */
  async used(personId: string, now: number): Promise<void> {
    await this.repository.touch(personId, now);
  }

  /** What may be shown of the person's key, or undefined. */
  async summary(personId: string): Promise<KeySummary | undefined> {
    const record = await this.repository.get(personId);
    if (!record) return undefined;
    return { personId: record.personId, lastFour: record.lastFour, connectedAt: record.connectedAt, lastUsedAt: record.lastUsedAt };
  }

  /** What may be shown of every connected key, by person. */
  async list(): Promise<KeySummary[]> {
    return (await this.repository.list()).map((record) => ({
      personId: record.personId,
      lastFour: record.lastFour,
      connectedAt: record.connectedAt,
      lastUsedAt: record.lastUsedAt,
    }));
  }

  /** Removes the person's key; false when none was connected. */
  async disconnect(personId: string): Promise<boolean> {
    return this.repository.remove(personId);
  }
}

/**
 * At start: the stored keys must open with the configured secret. No secret with keys stored, or a
 * secret they do not open with, is a `StartupError` naming AGENT_BRIDGE_SECRET (exit 2). Every key is
 * tried, so a half-done rotation is found here rather than at a person's next run.
 */
export async function checkStoredKeys(repository: PersonKeyRepository, secret: string | undefined): Promise<KeyBox | undefined> {
  const stored = await repository.list();
  if (secret === undefined) {
    if (stored.length === 0) return undefined;
    throw new StartupError(
      `AGENT_BRIDGE_SECRET is not set, but ${stored.length} personal API key(s) are stored sealed under it: set it to the secret they were stored with`,
    );
  }
  const box = new KeyBox(secret);
  for (const record of stored) {
    try {
      box.open(record.personId, record.sealed);
    } catch (error) {
      if (!(error instanceof KeyBoxError)) throw error;
      throw new StartupError(
        `AGENT_BRIDGE_SECRET does not open the stored personal API keys (${error.code}): set it to the secret they were stored with, ` +
          'or move them to a new one with agent-bridge secrets rotate',
      );
    }
  }
  return box;
}

/**
 * Re-seals every stored key under `next` (one transaction: all or nothing). Throws `StartupError`
 * naming AGENT_BRIDGE_SECRET when a key does not open with `current`. Returns how many were re-sealed.
 */
export async function rotateKeys(repository: PersonKeyRepository, current: string, next: string): Promise<number> {
  const from = await checkStoredKeys(repository, current);
  if (!from) return 0;
  const to = new KeyBox(next);
  const updates = (await repository.list()).map((record) => ({
    personId: record.personId,
    sealed: to.seal(record.personId, from.open(record.personId, record.sealed)),
  }));
  return repository.reseal(updates);
}
