import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SafeHtml } from './html.js';

/** No inline script or style, nothing from elsewhere, no framing, forms only to us. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

/** Biggest console form body: a few fields. */
export const FORM_LIMIT_BYTES = 16 * 1024;

export function sendHtml(res: ServerResponse, status: number, page: SafeHtml, headers: Record<string, string | string[]> = {}): void {
  const body = Buffer.from(page.value, 'utf8');
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-length': String(body.length), ...headers });
  res.end(body);
}

/** 303 See Other: after a form, the browser GETs `location`. */
export function redirect(res: ServerResponse, location: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(303, { ...SECURITY_HEADERS, location, 'content-length': '0', ...headers });
  res.end();
}

export function sendAsset(res: ServerResponse, contentType: string, body: string): void {
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': contentType, 'cache-control': 'no-cache' });
  res.end(body);
}

export function readCookies(req: IncomingMessage): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) cookies.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return cookies;
}

/** A `Set-Cookie` value for the console's paths: HttpOnly, SameSite=Lax, `Secure` behind https. */
export function cookie(name: string, value: string, options: { secure: boolean; maxAgeSeconds: number; sameSite?: 'Lax' | 'Strict' }): string {
  return [
    `${name}=${value}`,
    'Path=/console',
    'HttpOnly',
    `SameSite=${options.sameSite ?? 'Lax'}`,
    `Max-Age=${options.maxAgeSeconds}`,
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

export function queryOf(req: IncomingMessage): URLSearchParams {
  const url = req.url ?? '/';
  const mark = url.indexOf('?');
  return new URLSearchParams(mark < 0 ? '' : url.slice(mark + 1));
}

export function parseForm(body: Buffer): URLSearchParams {
  return new URLSearchParams(body.toString('utf8'));
}

/** The caller's address, for the sign-in limit (the socket's: a forwarded header is anyone's to write). */
export function clientAddress(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}
