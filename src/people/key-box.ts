/**
 * Personal API keys at rest: sealed with AES-256-GCM under a key derived from
 * `AGENT_BRIDGE_SECRET`. A sealed key is one text, `v1.<iv>.<tag>.<ciphertext>` (base64url), bound to
 * its person (the Slack user id is the GCM additional data), so a sealed value copied to another
 * person's row does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { BRIDGE_SECRET_MIN_LENGTH } from '../config-kit/value-sets.js';

/** Why a sealed key could not be opened or a secret was refused; `code` is stable. */
export class KeyBoxError extends Error {
  override readonly name = 'KeyBoxError';
  constructor(
    readonly code: 'wrong_secret' | 'malformed' | 'secret_too_short',
    message: string,
  ) {
    super(message);
  }
}

/** The shortest `AGENT_BRIDGE_SECRET` accepted (the config checks the same): guessing it is hopeless. */
export const SECRET_MIN_LENGTH = BRIDGE_SECRET_MIN_LENGTH;

const VERSION = 'v1';
// scrypt makes a guessed secret costly to try; the salt is fixed because the derived key must be the
// same in every replica and after a restart, and each sealing has its own random IV.
const SALT = 'agent-bridge personal API keys v1';

/** Seals and opens people's API keys under one secret. Never logs, never puts a key in an error. */
export class KeyBox {
  private readonly key: Buffer;

  constructor(secret: string) {
    if (secret.length < SECRET_MIN_LENGTH) {
      throw new KeyBoxError('secret_too_short', `AGENT_BRIDGE_SECRET must have at least ${SECRET_MIN_LENGTH} characters`);
    }
    this.key = scryptSync(secret, SALT, 32, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  }

  /** The sealed text of `apiKey` for `personId` (a new random IV each time). */
  seal(personId: string, apiKey: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(personId, 'utf8'));
    const body = Buffer.concat([cipher.update(apiKey, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  /**
   * The API key sealed for `personId`. Throws `KeyBoxError` `wrong_secret` when it was sealed under
   * another secret (or for another person, or altered), `malformed` when it is not a sealed key.
   */
  open(personId: string, sealed: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION) throw new KeyBoxError('malformed', 'a stored personal key is not in the expected format');
    const [, iv, tag, body] = parts as [string, string, string, string];
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(personId, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      // The cause is not kept: it says nothing useful and must not carry key material anywhere.
      throw new KeyBoxError('wrong_secret', 'a stored personal key does not open with AGENT_BRIDGE_SECRET (it was sealed under another secret)');
    }
  }
}

/** What people are shown of a key: its last 4 characters. */
export function lastFour(apiKey: string): string {
  return apiKey.slice(-4);
}
