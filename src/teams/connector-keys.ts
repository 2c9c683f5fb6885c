/**
 * The Bot Connector's signing keys (docs/teams.md): the OpenID metadata at
 * `TEAMS_OPENID_METADATA_URL` names its `jwks_uri`, whose keys sign every activity's token. The keys
 * are kept for a day and fetched again at once for a key id they do not hold — Microsoft rotates keys —
 * but at most once per cooldown, so tokens an anonymous caller makes up with made-up key ids cost at
 * most one fetch per cooldown, never one per request. Both times are the service's clock's.
 */
import { createRemoteJWKSet, errors, type JWTVerifyGetKey } from 'jose';
import type { Logger } from '../core/ports/logger.js';

/** How long the metadata and keys are kept. */
const KEEP_MS = 24 * 3_600_000;
/** The least time between two fetches for unknown key ids, and between two tries of a metadata fetch that failed. */
export const KEY_FETCH_COOLDOWN_MS = 5 * 60_000;
const TIMEOUT_MS = 5_000;

/** The keys' source: `keys()` answers the key set to verify with, or undefined while the metadata cannot be read. */
export interface ConnectorKeys {
  keys(nowMs: number): Promise<JWTVerifyGetKey | undefined>;
}

/** The keys a `jwks_uri` serves, and when the service's clock last fetched them. */
interface KeySet {
  remote: ReturnType<typeof createRemoteJWKSet>;
  /** When the metadata naming them was read: both are read again after KEEP_MS. */
  at: number;
  /** When the keys were last fetched, for the cooldown. */
  fetchedAt: number;
  /** The fetch for a key id they lack, which callers at the same time share. */
  refetching?: Promise<void> | undefined;
}

/** Verifies with `set`; a key id it lacks fetches the keys again, unless they were fetched within the cooldown. */
function keyOf(set: KeySet, nowMs: number): JWTVerifyGetKey {
  return async (header, token) => {
    try {
      return await set.remote(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      if (!set.refetching) {
        if (nowMs - set.fetchedAt < KEY_FETCH_COOLDOWN_MS) throw error;
        set.fetchedAt = nowMs;
        set.refetching = set.remote.reload().finally(() => (set.refetching = undefined));
      }
      await set.refetching;
      return set.remote(header, token);
    }
  };
}

export function connectorKeys(options: { metadataUrl: string; logger: Logger }): ConnectorKeys {
  let keySet: KeySet | undefined;
  let failedAt = -Infinity;
  let loading: Promise<void> | undefined;

  const load = async (nowMs: number) => {
    try {
      const response = await fetch(options.metadataUrl, { signal: AbortSignal.timeout(TIMEOUT_MS) });
      if (!response.ok) throw new Error(`the OpenID metadata answered ${response.status}`);
      const metadata = (await response.json()) as { jwks_uri?: unknown };
      if (typeof metadata.jwks_uri !== 'string') throw new Error('the OpenID metadata names no jwks_uri');
      // jose would fetch again by the wall clock; the service's clock decides instead (`keyOf`, KEEP_MS), so jose never does on its own.
      const remote = createRemoteJWKSet(new URL(metadata.jwks_uri), { cooldownDuration: Infinity, cacheMaxAge: Infinity, timeoutDuration: TIMEOUT_MS });
      await remote.reload();
      keySet = { remote, at: nowMs, fetchedAt: nowMs };
    } catch (error) {
      failedAt = nowMs;
      // Once per cooldown at most: it is Microsoft's (or the network's) failure, and every activity is refused meanwhile.
      options.logger.warn(
        { err: error instanceof Error ? error.message.slice(0, 200) : 'unknown', metadataUrl: options.metadataUrl },
        'Teams: could not read the Bot Connector’s signing keys; activities are refused until they can be read (check TEAMS_OPENID_METADATA_URL and the network)',
      );
    }
  };

  return {
    async keys(nowMs) {
      const fresh = keySet !== undefined && nowMs - keySet.at < KEEP_MS;
      if (!fresh && nowMs - failedAt >= KEY_FETCH_COOLDOWN_MS) {
        loading ??= load(nowMs).finally(() => (loading = undefined));
        await loading;
      }
      return keySet && keyOf(keySet, nowMs);
    },
  };
}
