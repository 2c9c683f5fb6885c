import { describe, expect, it } from 'vitest';
import { asker, keyCell, peopleFacts, type PeopleFacts } from './people-cells.js';

const FACTS: PeopleFacts = {
  names: new Map([
    ['U1', 'ada'],
    ['talk:t-2', 'Bob'],
  ]),
  keys: new Map([['U1', 'Hk42']]),
};

describe('who asked', () => {
  it.each<[string, { id?: string | null; name?: string | null } | undefined, string]>([
    ['a Slack user by their Slack name, not <@U…>', { id: 'U1', name: '<@U1>' }, '<bdi>ada</bdi> <span class="muted">(U1)</span>'],
    ['a Slack user whose name is not known by id only', { id: 'U2', name: '<@U2>' }, '<bdi>U2</bdi>'],
    [
      'a user of another chat surface by the name known for their mention token',
      { id: 't-2', name: '<@talk:t-2>' },
      '<bdi>Bob</bdi> <span class="muted">(t-2)</span>',
    ],
    ['a user of another chat surface whose name is not known by id only, never the token', { id: 't-3', name: '<@talk:t-3>' }, '<bdi>t-3</bdi>'],
    ['a Linear user by the name Linear gave', { id: 'lin-1', name: 'Lin Ear' }, '<bdi>Lin Ear</bdi> <span class="muted">(lin-1)</span>'],
    ['a name with markup, escaped', { id: 'lin-2', name: '<b>x</b>' }, '<bdi>&lt;b&gt;x&lt;/b&gt;</bdi> <span class="muted">(lin-2)</span>'],
    ['nobody', undefined, '<span class="muted">—</span>'],
  ])('%s', (_what, requester, expected) => {
    expect(asker(requester, FACTS).toString()).toBe(expected);
  });
});

describe('whose key', () => {
  it.each<[string, { personalKeyOwner?: string | null; requester?: { id?: string | null } | null }, RegExp]>([
    ['the service key', { requester: { id: 'U1' } }, /^<span class="muted">service key<\/span>$/],
    ['the asker’s own key by its last 4', { personalKeyOwner: 'U1', requester: { id: 'U1' } }, /^<span title="U1">own key ····Hk42<\/span>$/],
    [
      'a linked person’s key, and whose',
      { personalKeyOwner: 'U1', requester: { id: 'lin-1' } },
      /^own key ····Hk42 <span class="muted">of <bdi>ada<\/bdi><\/span>$/,
    ],
    ['a key since disconnected', { personalKeyOwner: 'U9', requester: { id: 'U9' } }, /own key <span class="muted">\(since disconnected\)<\/span>/],
  ])('%s', (_what, run, expected) => {
    expect(keyCell(run, FACTS).toString()).toMatch(expected);
  });

  it('reads names only for people it is given, and keys only when keys are on', async () => {
    const asked: string[][] = [];
    const facts = await peopleFacts({ names: { of: (ids) => (asked.push([...ids]), Promise.resolve(new Map([['U1', 'ada']]))) } }, ['U1', null, undefined, '']);
    expect(asked).toEqual([['U1']]);
    expect(facts.keys.size).toBe(0);
  });
});
