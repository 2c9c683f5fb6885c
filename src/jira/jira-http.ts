/**
 * One REST v3 exchange with Jira Cloud on undici: basic auth (the account's email and API token), a
 * timeout per call, the answer parsed as JSON, and every failure a `JiraApiError` with a stable code
 * named by the call's template (`GET /issue/{key}`), never by what Jira wrote back.
 */
import { Agent, request, type Dispatcher } from 'undici';
import { parseRetryAfter } from '../agent-api/errors.js';
import { codeForStatus, JiraApiError } from './jira-errors.js';

export interface JiraHttpOptions {
  /** The site, e.g. `https://acme.atlassian.net`. */
  baseUrl: string;
  email: string;
  apiToken: string;
  /** Per call, for the headers and between body chunks. Default 10 s. */
  timeoutMs?: number;
  now?: () => number;
}

export interface JiraHttp {
  /** `name` is the call's template (`GET /issue/{key}`): what errors say. `path` follows `/rest/api/3`. */
  call<T>(this: void, name: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

/** Calls on one keep-alive pool for the site. */
export function jiraHttp(options: JiraHttpOptions): JiraHttp {
  const base = options.baseUrl.replace(/\/+$/, '');
  // Kept only in the header; never in an error, a log line or a message.
  const authorization = `Basic ${Buffer.from(`${options.email}:${options.apiToken}`).toString('base64')}`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const now = options.now ?? Date.now;
  const dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 8 });

  const call = async <T>(name: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> => {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${base}/rest/api/3${path}`, {
        method,
        headers: {
          authorization,
          accept: 'application/json',
          'user-agent': 'agent-bridge',
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        dispatcher,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new JiraApiError(name, { code: code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' ? 'timeout' : 'connection' });
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch {
      throw new JiraApiError(name, { code: 'connection', status: response.statusCode });
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const retryAfterMs = parseRetryAfter(response.headers['retry-after'], now());
      throw new JiraApiError(name, {
        code: codeForStatus(response.statusCode),
        status: response.statusCode,
        ...(retryAfterMs !== undefined && { retryAfterMs }),
      });
    }
    if (text.trim() === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new JiraApiError(name, { code: 'invalid_response', status: response.statusCode });
    }
  };
  return { call, close: () => dispatcher.close() };
}
