/**
 * Which bearer keys the emulator accepts, and who each one is. The real run API attributes a run to
 * the key that created it: the service's key acts as a service account, a personal key as its owner.
 * The emulator never keeps a key in the clear: keys are compared and remembered by hash.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ProblemError } from './problem.js';

/** Who created a run, as `RunItem.creator` reports it, plus what tests may see of the key. */
export interface RunCreator {
  uid: string;
  type: 'user' | 'service_account';
  /** The key's last 4 characters (never more), for tests that check which key was used. */
  keyLastFour?: string;
}

/** The id the service reports as `creator.uid`: derived from the key, never the key itself. */
export function creatorUidFor(apiKey: string): string {
  return `key_${createHash('sha256').update(apiKey).digest('hex').slice(0, 12)}`;
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

const CHALLENGE = { headers: { 'www-authenticate': 'Bearer realm="agent-bridge-emulator"' } };

/**
 * The service key, whether other keys are accepted too, and the keys revoked since. A revoked key
 * answers 401 from then on, as a key deleted in the provider's settings would.
 */
export class KeyRing {
  private readonly serviceDigest: Buffer;
  private readonly revoked = new Set<string>();

  constructor(
    private readonly serviceKey: string,
    /** True: any bearer key is accepted (each its own creator); false: the service key only. */
    private readonly acceptAnyKey: boolean,
  ) {
    this.serviceDigest = digest(serviceKey);
  }

  /** The creator of runs made with the service key. */
  get service(): RunCreator {
    return { uid: creatorUidFor(this.serviceKey), type: 'service_account', keyLastFour: this.serviceKey.slice(-4) };
  }

  /** Refuses `key` from now on (401), the service key included; `reset` forgets revocations. */
  revoke(key: string): void {
    this.revoked.add(digest(key).toString('hex'));
  }

  reset(): void {
    this.revoked.clear();
  }

  /** The caller of an API request, or the 401 the run API answers for a missing, wrong or revoked key. */
  authenticate(req: IncomingMessage): RunCreator {
    const header = req.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw new ProblemError(401, 'missing Authorization: Bearer <api key> header', CHALLENGE);
    const key = match[1] ?? '';
    const given = digest(key);
    if (this.revoked.has(given.toString('hex'))) throw new ProblemError(401, 'invalid API key', CHALLENGE);
    if (timingSafeEqual(given, this.serviceDigest)) return this.service;
    if (!this.acceptAnyKey) throw new ProblemError(401, 'invalid API key', CHALLENGE);
    return { uid: creatorUidFor(key), type: 'user', keyLastFour: key.slice(-4) };
  }
}

/** Who may see a run: `team` — every accepted key sees every run (the default); `owner` — only the key that created it. */
export type Visibility = 'owner' | 'team';

export const VISIBILITIES: readonly Visibility[] = ['owner', 'team'];
