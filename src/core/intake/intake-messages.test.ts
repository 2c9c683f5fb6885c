import { describe, expect, it } from 'vitest';
import type { StoredTrigger, TrackedRun } from '../ports/store.js';
import { followupHeardElsewhere, isPlaceOf } from './intake-messages.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';

const run = (destinations: string[]): TrackedRun =>
  ({ runId: 'r1', anchor: 'linear:issue-1', destinations, triggerKey: 'linear:label:1' }) as unknown as TrackedRun;
const followup = (anchor: string, text: string): StoredTrigger =>
  ({ kind: 'followup', key: `k:${anchor}`, source: anchor.split(':')[0], anchor, payload: { message: text } }) as unknown as StoredTrigger;

describe('isPlaceOf', () => {
  it.each([
    ['linear:issue-1', 'linear:issue-1', true],
    ['slack:C1', 'slack:C1:1700.1', true],
    ['slack:C1:1700.1', 'slack:C1:1700.1', true],
    ['slack:C1', 'slack:C12:1700.1', false],
    ['linear:issue-1', 'slack:C1:1700.1', false],
  ])('%s is the place of %s: %s', (destination, anchor, expected) => {
    expect(isPlaceOf(destination, anchor)).toBe(expected);
  });
});

describe('followupHeardElsewhere', () => {
  it('tells every other place who sent a follow-up and where, never what it said', () => {
    const rows = followupHeardElsewhere(
      followup('slack:C1:1700.1', 'the secret plan'),
      run(['linear:issue-1', 'slack:C1']),
      {
        platform: 'slack',
        id: 'U1',
        name: '<@U1>',
      },
      testSurfaces(),
    );
    expect(rows.map((row) => row.destination)).toEqual(['linear:issue-1']);
    expect(rows[0]?.payload).toEqual({
      kind: 'notice',
      text: 'Slack user U1 sent the run a follow-up from Slack.',
      receivedKey: 'received:linear:label:1:linear:issue-1',
    });
    expect(JSON.stringify(rows)).not.toContain('secret plan');
  });

  it('names a Linear person by name in the Slack thread, threaded under the run’s status message', () => {
    const rows = followupHeardElsewhere(
      followup('linear:issue-1', 'x'),
      run(['linear:issue-1', 'slack:C1']),
      { platform: 'linear', id: 'u', name: 'Ada' },
      testSurfaces(),
    );
    expect(rows).toEqual([
      {
        key: 'followup-heard:k:linear:issue-1:slack:C1',
        destination: 'slack:C1',
        kind: 'notice',
        payload: { kind: 'notice', text: 'Ada sent the run a follow-up from Linear.', receivedKey: 'received:linear:label:1:slack:C1' },
      },
    ]);
  });

  it('links what came to the page its edge gave, and names a GitHub person as GitHub spells them', () => {
    const review = 'https://github.com/Codertocat/Hello-World/pull/2#pullrequestreview-1';
    const trigger = {
      ...followup('github:codertocat/hello-world#2', 'x'),
      payload: { message: 'x', heardAs: { what: 'a review requesting changes', link: review } },
    } as unknown as StoredTrigger;
    const rows = followupHeardElsewhere(
      trigger,
      run(['github:codertocat/hello-world#2', 'slack:C1']),
      { platform: 'github', id: 'codertocat', name: 'Codertocat' },
      testSurfaces(),
    );
    expect(rows.map((row) => row.payload)).toEqual([
      {
        kind: 'notice',
        text: `GitHub user Codertocat sent the run a review requesting changes (${review}) from GitHub.`,
        parts: ['GitHub user Codertocat sent the run ', { url: review, label: 'a review requesting changes' }, ' from GitHub.'],
        receivedKey: 'received:linear:label:1:slack:C1',
      },
    ]);
  });

  it('tells only places where people talk, not views such as a Home tab', () => {
    const rows = followupHeardElsewhere(
      followup('slack:C1:1700.1', 'x'),
      run(['slack:C1:1700.1', 'slack:home:U1', 'linear-session:s1', 'log:cli']),
      undefined,
      testSurfaces(),
    );
    expect(rows).toEqual([]);
  });

  it('owes nothing for a run with one place', () => {
    expect(followupHeardElsewhere(followup('slack:C1:1700.1', 'x'), run(['slack:C1:1700.1']), undefined, testSurfaces())).toEqual([]);
  });
});
