import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OwnIds } from './own-ids.js';

describe('OwnIds', () => {
  const ids = new OwnIds('webhook-secret-1');

  it('gives a stable UUID per key, different between keys', () => {
    expect(ids.idFor('received:t1:linear:ENG-1')).toBe(ids.idFor('received:t1:linear:ENG-1'));
    expect(ids.idFor('a')).not.toBe(ids.idFor('b'));
    expect(ids.idFor('a')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('recognises its own ids, in any case', () => {
    for (const key of ['a', 'run:run_1:3:linear:ENG-9:announce', 'x'.repeat(500)]) {
      expect(ids.isOwn(ids.idFor(key))).toBe(true);
      expect(ids.isOwn(ids.idFor(key).toUpperCase())).toBe(true);
    }
  });

  it.each([
    ['another installation (other secret)', new OwnIds('other-secret').idFor('a')],
    ['a random UUID', randomUUID()],
    ['not a UUID', 'comment-1'],
    ['empty', ''],
  ])('does not claim %s', (_what, id) => {
    expect(ids.isOwn(id)).toBe(false);
  });

  it('claims no random UUID out of 10,000 (the tag is 32 bits)', () => {
    let claimed = 0;
    for (let i = 0; i < 10_000; i++) if (ids.isOwn(randomUUID())) claimed++;
    expect(claimed).toBe(0);
  });
});
