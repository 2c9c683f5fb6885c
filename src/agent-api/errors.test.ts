import { describe, expect, it } from 'vitest';
import { errorFromResponse, errorFromTransport, parseRetryAfter } from './errors.js';

describe('errorFromResponse', () => {
  it.each([
    [400, 'bad_request', false],
    [401, 'authentication', false],
    [403, 'permission', false],
    [404, 'not_found', false],
    [408, 'timeout', true],
    [409, 'conflict', true],
    [422, 'unprocessable', false],
    [429, 'rate_limited', true],
    [500, 'server', true],
    [502, 'server', true],
    [503, 'server', true],
    [418, 'unexpected_status', false],
  ] as const)('status %i → kind %s (retryable %s)', (status, kind, retryable) => {
    const error = errorFromResponse('GET /agent/runs', status, '', undefined);
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
    expect(error.retryable).toBe(retryable);
    expect(error.code).toBe(kind);
  });

  it('takes code, detail and retryable from an RFC 7807 body', () => {
    const body = JSON.stringify({ type: 'about:blank', title: 'Conflict', status: 409, detail: 'run is being prepared', error: 'conflict', retryable: false });
    const error = errorFromResponse('POST /agent/runs/{id}/cancel', 409, body, 2000);
    expect(error).toMatchObject({ kind: 'conflict', code: 'conflict', detail: 'run is being prepared', retryable: false, retryAfterMs: 2000 });
    expect(error.message).toBe('POST /agent/runs/{id}/cancel answered 409 conflict: run is being prepared');
  });

  const DOCS = 'https://docs.warp.dev/reference/api-and-sdk/troubleshooting/errors/';
  it.each([
    [
      'the SDK shape: code in type and error',
      { type: `${DOCS}resource_not_found`, title: 'Not Found', status: 404, detail: 'run r not found', error: 'resource_not_found' },
      'resource_not_found',
      'run r not found',
    ],
    [
      'the SDK shape with a sentence in error',
      { type: `${DOCS}resource_not_found`, title: 'Not Found', status: 404, error: 'Not Found: run r not found' },
      'resource_not_found',
      'Not Found: run r not found',
    ],
    ['an older body: code in error only', { type: 'about:blank', title: 'Not Found', status: 404, detail: 'gone', error: 'not_found' }, 'not_found', 'gone'],
    ['a sentence in error and no type', { title: 'Not Found', error: 'Run r does not exist' }, 'not_found', 'Run r does not exist'],
    ['only a title', { title: 'Not Found' }, 'not_found', 'Not Found'],
  ])('reads the code and detail of %s', (_name, body, code, detail) => {
    const error = errorFromResponse('GET /agent/runs/{id}', 404, JSON.stringify(body), undefined);
    expect(error).toMatchObject({ kind: 'not_found', code, detail });
    expect(error.message).toBe(`GET /agent/runs/{id} answered 404 ${code}: ${detail}`);
  });

  it('keeps the status when the body is not JSON (a proxy page)', () => {
    const error = errorFromResponse('GET /agent/runs', 502, '<html>Bad gateway</html>', undefined);
    expect(error).toMatchObject({ kind: 'server', status: 502, code: 'server', detail: undefined });
  });

  it('ignores problem fields of the wrong type instead of failing', () => {
    const error = errorFromResponse('GET /agent/runs', 400, JSON.stringify({ detail: 42, error: ['x'], retryable: 'yes' }), undefined);
    expect(error).toMatchObject({ kind: 'bad_request', code: 'bad_request', retryable: false, detail: undefined });
  });
});

describe('errorFromTransport', () => {
  it.each([
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout', 'timeout'],
    ['UND_ERR_BODY_TIMEOUT', 'timeout', 'timeout'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout', 'timeout'],
    ['ECONNREFUSED', 'connection', 'connection_refused'],
    ['ECONNRESET', 'connection', 'connection_failed'],
    ['UND_ERR_SOCKET', 'connection', 'connection_failed'],
  ])('%s → %s / %s', (code, kind, stableCode) => {
    const cause = Object.assign(new Error('low level'), { code });
    const error = errorFromTransport('GET /agent/runs', new Error('fetch failed', { cause }));
    expect(error.kind).toBe(kind);
    expect(error.code).toBe(stableCode);
    expect(error.status).toBe(0);
    expect(error.retryable).toBe(true);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');
  it.each([
    ['3', 3000],
    ['0', 0],
    ['1.5', 1500],
    ['Sat, 21 Nov 2026 12:00:10 GMT', 10_000],
    ['Sat, 21 Nov 2026 11:59:00 GMT', 0],
    ['soon', undefined],
    [undefined, undefined],
  ])('%s → %s ms', (header, expected) => {
    expect(parseRetryAfter(header, now)).toBe(expected);
  });
});
