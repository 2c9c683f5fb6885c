/**
 * Builds requests to `/slack/events` exactly as Slack signs them:
 * `x-slack-signature: v0=<hex HMAC-SHA256(secret, "v0:" + timestamp + ":" + rawBody)>` and
 * `x-slack-request-timestamp: <seconds>`.
 */
import { createHmac } from 'node:crypto';

/** Extra knobs for the post helpers. */
export interface SlackPostOptions {
  /** Sent as `x-slack-retry-num` (Slack's redelivery counter, 1–3). */
  retryNum?: number;
  /** Sent as `x-slack-retry-reason`, e.g. 'http_timeout'. */
  retryReason?: string;
  /** Request timestamp in seconds (default: now). Use an old one to test the 5-minute window. */
  timestamp?: number;
  /** Replaces the computed signature (to test rejection). */
  signature?: string;
  /** Overrides the content type (e.g. 'application/x-www-form-urlencoded; charset=utf-8'). */
  contentType?: string;
  /** More headers. */
  headers?: Record<string, string>;
}

/** Signature headers for `body` (string or raw bytes) signed with `secret` at `timestampSeconds` (default now). */
export function signSlack(
  secret: string,
  body: string | Uint8Array,
  timestampSeconds: number = Math.floor(Date.now() / 1000),
): { 'x-slack-signature': string; 'x-slack-request-timestamp': string } {
  const ts = String(timestampSeconds);
  const hmac = createHmac('sha256', secret);
  hmac.update(`v0:${ts}:`);
  hmac.update(body);
  return { 'x-slack-signature': `v0=${hmac.digest('hex')}`, 'x-slack-request-timestamp': ts };
}

/** POSTs an arbitrary raw body (string or bytes), signed, with the given content type. */
export function postSlackRaw(url: string, secret: string, body: string | Uint8Array, contentType: string, options: SlackPostOptions = {}): Promise<Response> {
  const signed = signSlack(secret, body, options.timestamp);
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? contentType,
    'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    ...signed,
    ...(options.signature !== undefined ? { 'x-slack-signature': options.signature } : {}),
    ...(options.retryNum !== undefined ? { 'x-slack-retry-num': String(options.retryNum) } : {}),
    ...(options.retryReason !== undefined ? { 'x-slack-retry-reason': options.retryReason } : {}),
    ...options.headers,
  };
  return fetch(url, { method: 'POST', headers, body });
}

/** POSTs an Events API body (`event_callback`, `url_verification`) as JSON. */
export function postSlackEvent(url: string, secret: string, event: object, options: SlackPostOptions = {}): Promise<Response> {
  return postSlackRaw(url, secret, JSON.stringify(event), 'application/json', options);
}

/** POSTs flat form fields (slash commands) as `application/x-www-form-urlencoded`. */
export function postSlackForm(url: string, secret: string, fields: Record<string, string>, options: SlackPostOptions = {}): Promise<Response> {
  return postSlackRaw(url, secret, new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded', options);
}

/** POSTs an interactivity payload (block_actions, shortcut, view_submission) as form field `payload=<JSON>`. */
export function postSlackInteraction(url: string, secret: string, payload: object, options: SlackPostOptions = {}): Promise<Response> {
  return postSlackForm(url, secret, { payload: JSON.stringify(payload) }, options);
}
