/**
 * Posts webhooks exactly as GitLab sends them (https://docs.gitlab.com/user/project/integrations/webhooks/#delivery-headers;
 * GitLab's WebHookService#build_headers): `Content-Type: application/json`, `User-Agent: GitLab/<version>`,
 * `X-Gitlab-Event` (the hook's name), `X-Gitlab-Event-UUID` (the originating request's id: every hook
 * that one action fires shares it), `X-Gitlab-Webhook-UUID` (new on each attempt), `Idempotency-Key`
 * (one per delivery, the same on a retry), `X-Gitlab-Instance`, and the secret either in plain text as
 * `X-Gitlab-Token` or, for a signing token `whsec_<base64>`, as a Standard Webhooks signature
 * (https://www.standardwebhooks.com/): `webhook-id` (= `Idempotency-Key`), `webhook-timestamp` (Unix
 * seconds) and `webhook-signature: v1,<base64 HMAC-SHA256(base64-decoded key, "{id}.{timestamp}.{body}")>`.
 * Evil variants tamper with one part so a receiver can be shown refusing it.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';

/** The GitLab version in `User-Agent`. */
export const GITLAB_VERSION = '18.9.0-ee';

export type Tamper =
  /** `X-Gitlab-Token` is another secret. */
  | 'wrong-token'
  /** No `X-Gitlab-Token` at all. */
  | 'no-token'
  /** The signature is computed with another key. */
  | 'bad-signature'
  /** The body changed after it was signed. */
  | 'tampered-body'
  /** `webhook-timestamp` 10 minutes old, correctly signed. */
  | 'stale-timestamp'
  /** `webhook-timestamp` 10 minutes ahead, correctly signed. */
  | 'future-timestamp'
  /** The `webhook-*` headers are missing. */
  | 'no-signature'
  /** The signature under a version other than `v1` (`v1a` is the spec's asymmetric one). */
  | 'unknown-version';

export interface DeliverOptions {
  /** The hook's secret token (`token` signing) or its signing token `whsec_…` (`standard-webhooks`). */
  secret: string;
  signing?: 'token' | 'standard-webhooks';
  /** The delivery's `Idempotency-Key` (and `webhook-id`): pass the first delivery's to send a retry. */
  idempotencyKey?: string;
  /** The originating request's `X-Gitlab-Event-UUID`: pass one to two hooks fired by one action. */
  eventUuid?: string;
  /** Now, in milliseconds (`webhook-timestamp`); default `Date.now()`. */
  now?: number;
  tamper?: Tamper;
  /** The instance's origin for `X-Gitlab-Instance`. */
  instance?: string;
  /** More headers (or replacements), e.g. a wrong `content-type`. */
  headers?: Record<string, string>;
}

/** A hook and its payload: `{ hook: 'Issue Hook', body: {...} }` (a fixture), or a raw body string. */
export interface GitlabEvent {
  hook: string;
  body: object | string;
}

export interface Delivery {
  response: Response;
  /** The headers sent (lower-case names). */
  headers: Record<string, string>;
  /** The raw body sent. */
  body: string;
  idempotencyKey: string;
  eventUuid: string;
}

/** A new signing token as GitLab makes one: `whsec_` and 32 random bytes in base64. */
export function newSigningToken(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** `v1,<base64 HMAC-SHA256>` over `{id}.{timestamp}.{body}` with the token's decoded key. */
export function signStandardWebhook(signingToken: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(signingToken.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** POSTs `event` to `url` as GitLab delivers a webhook. */
export async function deliver(url: string, event: GitlabEvent, options: DeliverOptions): Promise<Delivery> {
  const signed = typeof event.body === 'string' ? event.body : JSON.stringify(event.body);
  const idempotencyKey = options.idempotencyKey ?? randomUUID();
  const eventUuid = options.eventUuid ?? randomUUID();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': `GitLab/${GITLAB_VERSION}`,
    'idempotency-key': idempotencyKey,
    'x-gitlab-event': event.hook,
    'x-gitlab-webhook-uuid': randomUUID(),
    'x-gitlab-instance': options.instance ?? 'https://gitlab.example.com',
    'x-gitlab-event-uuid': eventUuid,
  };
  const tamper = options.tamper;
  if ((options.signing ?? 'token') === 'token') {
    if (tamper !== 'no-token') headers['x-gitlab-token'] = tamper === 'wrong-token' ? `${options.secret}-not` : options.secret;
  } else if (tamper !== 'no-signature') {
    const skew = tamper === 'stale-timestamp' ? -600 : tamper === 'future-timestamp' ? 600 : 0;
    const timestamp = Math.floor((options.now ?? Date.now()) / 1000) + skew;
    const key = tamper === 'bad-signature' ? newSigningToken() : options.secret;
    const signature = signStandardWebhook(key, idempotencyKey, timestamp, signed);
    headers['webhook-id'] = idempotencyKey;
    headers['webhook-timestamp'] = String(timestamp);
    headers['webhook-signature'] = tamper === 'unknown-version' ? signature.replace(/^v1,/, 'v1a,') : signature;
  }
  Object.assign(headers, Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])));
  const body = tamper === 'tampered-body' ? signed.replace(/}$/, ',"injected":true}') : signed;
  const response = await fetch(url, { method: 'POST', headers, body });
  return { response, headers, body, idempotencyKey, eventUuid };
}
