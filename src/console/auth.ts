import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ConsoleAccess } from './console-config.js';

/**
 * Sign-in, sessions and CSRF tokens of the console.
 *
 * Sessions are signed, stateless cookies (`<sid>.<expiry>.<mac>`), not rows in the store: every
 * replica derives the same key from `CONSOLE_ADMIN_TOKEN`, so a session works on all of them without a
 * database write per sign-in, and changing the token signs everybody out. Sign-out clears the cookie;
 * a copied cookie stays valid until it expires (12 h), the price of statelessness. With the one-time
 * link (built-in emulator, no token) the key is random per process: a restart signs everybody out.
 *
 * CSRF: every form carries `HMAC(key, "csrf:" + sid)`, which a page of another site cannot read; the
 * sign-in form (no session yet) carries one bound to a short-lived sign-in cookie instead.
 */

export const SESSION_COOKIE = 'agent_bridge_console';
export const SIGN_IN_COOKIE = 'agent_bridge_console_sign_in';
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface Session {
  sid: string;
  expiresAt: number;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Equal strings, compared in constant time (their digests, so lengths leak nothing either). */
function sameText(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

export class ConsoleAuth {
  private readonly key: Buffer;
  private oneTimeCode: string | undefined;

  constructor(private readonly access: Exclude<ConsoleAccess, { mode: 'off' }>) {
    this.key = access.mode === 'token' ? createHmac('sha256', access.token).update('agent-bridge console sessions v1').digest() : randomBytes(32);
    if (access.mode === 'one-time link') this.oneTimeCode = randomBytes(24).toString('base64url');
  }

  /** The path of the one-time sign-in link (once; undefined when signing in takes the token). */
  oneTimePath(): string | undefined {
    return this.oneTimeCode ? `/console/sign-in?once=${this.oneTimeCode}` : undefined;
  }

  /** True once for the right code; the link is spent after that. */
  consumeOneTimeCode(code: string): boolean {
    if (!this.oneTimeCode || !sameText(code, this.oneTimeCode)) return false;
    this.oneTimeCode = undefined;
    return true;
  }

  /** True when `token` is the admin token (never true without one). */
  checkToken(token: string): boolean {
    return this.access.mode === 'token' && sameText(token, this.access.token);
  }

  private mac(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }

  newSession(now: number): { cookie: string; session: Session } {
    const session = { sid: randomBytes(16).toString('base64url'), expiresAt: now + SESSION_TTL_MS };
    const body = `${session.sid}.${session.expiresAt}`;
    return { cookie: `${body}.${this.mac(`session:${body}`)}`, session };
  }

  /** The session a cookie value stands for, if it is ours, intact and not expired. */
  readSession(cookie: string | undefined, now: number): Session | undefined {
    const parts = cookie?.split('.');
    if (!parts || parts.length !== 3) return undefined;
    const [sid, expiry, mac] = parts as [string, string, string];
    if (!sameText(mac, this.mac(`session:${sid}.${expiry}`))) return undefined;
    const expiresAt = Number(expiry);
    return Number.isFinite(expiresAt) && expiresAt > now ? { sid, expiresAt } : undefined;
  }

  csrfToken(sid: string): string {
    return this.mac(`csrf:${sid}`);
  }

  checkCsrf(sid: string, token: string | undefined): boolean {
    return token !== undefined && sameText(token, this.csrfToken(sid));
  }

  /** A nonce for the sign-in cookie and the sign-in form's token bound to it. */
  newSignInNonce(): { nonce: string; token: string } {
    const nonce = randomBytes(16).toString('base64url');
    return { nonce, token: this.mac(`sign-in:${nonce}`) };
  }

  checkSignInToken(nonce: string | undefined, token: string | undefined): boolean {
    return nonce !== undefined && token !== undefined && sameText(token, this.mac(`sign-in:${nonce}`));
  }
}
