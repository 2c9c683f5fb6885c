/**
 * The Bot Connector's token on an activity (`Authorization: Bearer <JWT>`), checked before a byte of
 * the body is read: RS256 by one of the connector's keys (`connector-keys.ts`), issuer
 * `https://api.botframework.com`, audience our client id, not expired (5 minutes' skew either way).
 * Its `serviceurl` claim is handed on, to be compared with the activity's `serviceUrl` once the body
 * is read (`parse-activity.ts`). A refusal says only missing, stale or mismatch, never why in detail.
 */
import { errors, jwtVerify } from 'jose';
import type { BearerCheck } from '../http/verify-bearer.js';
import type { ConnectorKeys } from './connector-keys.js';

export const CONNECTOR_ISSUER = 'https://api.botframework.com';
const SKEW_SECONDS = 300;

export function connectorTokenCheck(options: { clientId: string; keys: ConnectorKeys }): BearerCheck {
  return async (token, nowMs) => {
    const keys = await options.keys.keys(nowMs);
    if (!keys) return { ok: false, problem: 'mismatch' };
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: CONNECTOR_ISSUER,
        audience: options.clientId,
        algorithms: ['RS256'],
        clockTolerance: SKEW_SECONDS,
        currentDate: new Date(nowMs),
        requiredClaims: ['exp'],
      });
      return { ok: true, claims: { serviceurl: payload['serviceurl'] } };
    } catch (error) {
      if (error instanceof errors.JWTExpired) return { ok: false, problem: 'stale' };
      // Any other failure of a token (its signature, claims, shape, an unknown key) or of fetching keys is a refusal, never ours to throw.
      return { ok: false, problem: 'mismatch' };
    }
  };
}
