import { describe, expect, it } from 'vitest';
import { KeyBox, KeyBoxError, lastFour } from './key-box.js';

const SECRET = 'a'.repeat(16) + 'b'.repeat(16);
const OTHER = 'c'.repeat(40);
const API_KEY = 'wk_live_0123456789abcdefXYZ9';

/** The sealed text with the first character of its ciphertext changed (the last may be padding bits only). */
function alterBody(sealed: string): string {
  const parts = sealed.split('.');
  const body = parts[3] ?? '';
  parts[3] = (body.startsWith('A') ? 'B' : 'A') + body.slice(1);
  return parts.join('.');
}

describe('KeyBox', () => {
  const box = new KeyBox(SECRET);

  it('opens what it sealed, and the sealed text holds no part of the key', () => {
    const sealed = box.seal('U1', API_KEY);
    expect(box.open('U1', sealed)).toBe(API_KEY);
    expect(sealed).not.toContain(API_KEY);
    expect(sealed).not.toContain(lastFour(API_KEY));
    expect(sealed).not.toContain(Buffer.from(API_KEY).toString('base64').slice(0, 12));
  });

  it('seals the same key differently each time (random IV)', () => {
    expect(box.seal('U1', API_KEY)).not.toBe(box.seal('U1', API_KEY));
  });

  it.each([
    ['another secret', () => new KeyBox(OTHER).open('U1', box.seal('U1', API_KEY)), 'wrong_secret'],
    ['another person', () => box.open('U2', box.seal('U1', API_KEY)), 'wrong_secret'],
    ['an altered text', () => box.open('U1', alterBody(box.seal('U1', API_KEY))), 'wrong_secret'],
    ['not a sealed key', () => box.open('U1', 'plain-text'), 'malformed'],
  ])('refuses %s with a stable code and no key in the message', (_what, attempt, code) => {
    let caught: unknown;
    try {
      attempt();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(KeyBoxError);
    expect((caught as KeyBoxError).code).toBe(code);
    expect((caught as Error).message).not.toContain(API_KEY);
    expect((caught as Error).message).not.toContain(SECRET);
  });

  it('refuses a short secret', () => {
    expect(() => new KeyBox('short')).toThrow(expect.objectContaining({ code: 'secret_too_short' }));
  });

  it('shows only the last 4 characters', () => {
    expect(lastFour(API_KEY)).toBe('XYZ9');
  });
});
