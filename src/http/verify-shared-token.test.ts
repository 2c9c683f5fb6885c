import { describe, expect, it } from 'vitest';
import { sharedToken } from './verify-shared-token.js';

const TOKEN = 'glpat-webhook-token-0123456789';
const NOW = 1_772_441_700_000;

describe('sharedToken', () => {
  const verifier = sharedToken({ header: 'X-Token', token: TOKEN });

  it('is checked whole on the headers, before the body is read: nothing is left for after', () => {
    expect(verifier.credential).toBe('X-Token');
    expect(verifier.refuse({ 'x-token': TOKEN }, NOW)).toBeUndefined();
    expect(verifier).not.toHaveProperty('admit');
    expect(verifier).not.toHaveProperty('verify');
  });

  it.each<[string, string | undefined, 'missing' | 'mismatch']>([
    ['another token', 'glpat-webhook-token-9876543210', 'mismatch'],
    ['the token and more', `${TOKEN}x`, 'mismatch'],
    ['a prefix of the token', TOKEN.slice(0, -1), 'mismatch'],
    ['the token in another case', TOKEN.toUpperCase(), 'mismatch'],
    ['the token sent twice (joined by the parser)', `${TOKEN}, ${TOKEN}`, 'mismatch'],
    ['empty', '', 'missing'],
    ['missing', undefined, 'missing'],
  ])('%s → %s', (_what, value, expected) => {
    expect(verifier.refuse(value === undefined ? {} : { 'x-token': value }, NOW)).toBe(expected);
  });

  it('an empty configured token admits nobody, also a request sending an empty one', () => {
    const empty = sharedToken({ header: 'x-token', token: '' });
    expect(empty.refuse({ 'x-token': '' }, NOW)).toBe('missing');
    expect(empty.refuse({ 'x-token': 'anything' }, NOW)).toBe('mismatch');
  });
});
