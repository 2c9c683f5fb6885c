/**
 * The Bot Connector's signing keys (docs/teams.md): the OpenID metadata at
 * `TEAMS_OPENID_METADATA_URL` names its `jwks_uri`, whose keys sign every activity's token. The keys
 * are kept for a day and fetched again at once for a key id they do not hold — Microsoft rotates keys —
 * but at most once per cooldown, so tokens an anonymous caller makes up with made-up key ids cost at
 * most one fetch per cooldown, never one per request.
 */
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
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

export function connectorKeys(options: { metadataUrl: string; logger: Logger }): ConnectorKeys {
  let keySet: { get: JWTVerifyGetKey; at: number } | undefined;
  let failedAt = -Infinity;
  let loading: Promise<void> | undefined;

  const load = async (nowMs: number) => {
    try {
      const response = await fetch(options.metadataUrl, { signal: AbortSignal.timeout(TIMEOUT_MS) });
      if (!response.ok) throw new Error(`the OpenID metadata answered ${response.status}`);
      const metadata = (await response.json()) as { jwks_uri?: unknown };
      if (typeof metadata.jwks_uri !== 'string') throw new Error('the OpenID metadata names no jwks_uri');
      const get = createRemoteJWKSet(new URL(metadata.jwks_uri), {
        cooldownDuration: KEY_FETCH_COOLDOWN_MS,
        cacheMaxAge: KEEP_MS,
        timeoutDuration: TIMEOUT_MS,
      });
      keySet = { get, at: nowMs };
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
      return keySet?.get;
    },
  };
}
