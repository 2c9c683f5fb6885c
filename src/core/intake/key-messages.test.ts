import { describe, expect, it } from 'vitest';
import type { StoredTrigger } from '../ports/store.js';
import { keyProblemMessages } from './key-messages.js';
import { testSurfaces } from '../../../test/helpers/surfaces.js';

const HOW = '`/agent connect` in Slack or the console\u2019s key page (https://bridge.example.com/console/my-key)';

const start = (anchor: string, requester: { platform: string; id: string }): StoredTrigger =>
  ({
    kind: 'start',
    key: `k:${anchor}`,
    source: requester.platform,
    anchor,
    payload: { prompt: 'p', title: 'Fix it', origin: { source: 'cli' }, destinations: [anchor], requester },
  }) as unknown as StoredTrigger;
const other = (kind: 'followup' | 'cancel', anchor: string, requester: { platform: string; id: string }): StoredTrigger =>
  ({ kind, key: `k:${anchor}`, source: requester.platform, anchor, payload: { message: 'm', requester } }) as unknown as StoredTrigger;

const SLACK = 'slack:C1:1700.1';
const LINEAR = 'linear:issue-1';
const alice = { platform: 'slack', id: 'U0ALICE' };
const ada = { platform: 'linear', id: 'lin-ada' };
const texts = (rows: ReturnType<typeof keyProblemMessages>) => rows.map((row) => JSON.stringify(row.payload));

describe('keyProblemMessages', () => {
  it('Slack, no key, a start: the person privately with how to connect, the status message says it could not start', () => {
    const rows = keyProblemMessages(start(SLACK, alice), 'start', { kind: 'no_key' }, HOW, testSurfaces());
    expect(rows.map((row) => [row.kind, row.destination])).toEqual([
      ['notice', SLACK],
      ['failed', SLACK],
    ]);
    expect(rows[0]?.payload).toMatchObject({ kind: 'notice', privateTo: 'U0ALICE' });
    expect(texts(rows)[0]).toContain('No run was started');
    expect(texts(rows)[0]).toContain('/agent connect');
    expect(rows[1]?.payload).toMatchObject({ kind: 'failed', reason: 'the person who asked has no personal API key connected, which this workspace requires' });
  });

  it('Slack, no key, a follow-up or a stop: only the person hears it', () => {
    for (const kind of ['followup', 'cancel'] as const) {
      const rows = keyProblemMessages(other(kind, SLACK, alice), kind, { kind: 'no_key' }, HOW, testSurfaces());
      expect(rows).toHaveLength(1);
      expect(rows[0]?.payload).toMatchObject({ kind: 'notice', privateTo: 'U0ALICE' });
    }
  });

  it('Linear, no key: the issue itself says how to connect one (Linear has no private messages)', () => {
    const rows = keyProblemMessages(start(LINEAR, ada), 'start', { kind: 'no_key' }, HOW, testSurfaces());
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: 'failed', destination: LINEAR });
    expect(texts(rows)[0]).toContain('connect one with `/agent connect` in Slack or the console');
    const followup = keyProblemMessages(other('followup', LINEAR, ada), 'followup', { kind: 'no_key' }, HOW, testSurfaces());
    expect(followup).toHaveLength(1);
    expect(followup[0]?.payload).toEqual({
      kind: 'notice',
      text: `The follow-up was not sent: the person who asked has no personal API key connected, which this workspace requires; connect one with ${HOW}.`,
    });
  });

  it('a refused key: the person privately with the status, and the place that nothing was sent', () => {
    const rows = keyProblemMessages(other('followup', SLACK, alice), 'followup', { kind: 'refused', status: 403 }, HOW, testSurfaces());
    expect(rows.map((row) => row.payload)).toEqual([
      {
        kind: 'notice',
        privateTo: 'U0ALICE',
        text: `Your message was not sent to the run: the run API refused your personal API key (403): it may have been revoked, have expired or lack access. Connect a working key: ${HOW}.`,
      },
      { kind: 'notice', text: 'The follow-up was not sent: the run API refused the personal API key of the person who asked.' },
    ]);
  });

  it('is keyed per trigger, so a retried trigger owes each message once', () => {
    const first = keyProblemMessages(start(SLACK, alice), 'start', { kind: 'refused', status: 401 }, HOW, testSurfaces());
    const again = keyProblemMessages(start(SLACK, alice), 'start', { kind: 'refused', status: 401 }, HOW, testSurfaces());
    expect(again.map((row) => row.key)).toEqual(first.map((row) => row.key));
    expect(new Set(first.map((row) => row.key)).size).toBe(first.length);
  });
});
