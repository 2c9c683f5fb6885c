import { describe, expect, it } from 'vitest';
import type { OutboxMessage } from './ports/messages.js';
import type { NewOutboxRow } from './ports/store.js';
import { foldSessionRows, sessionRows } from './session-rows.js';

const SLACK = 'slack:C1:1700.1';
const OTHER = 'slack:C2:1700.2';
const LINEAR = 'linear:ENG-1';
const run = { runId: 'run_1', title: 'Fix it', destinations: [SLACK, OTHER, LINEAR], triggerKey: 'Ev1' };
const sessions = sessionRows(run, 0, 'working', (destination) => destination.startsWith('slack:'), { initiator: { platform: 'slack', id: 'U1' } });
const status = (destination: string): NewOutboxRow => ({
  key: `run:run_1:0:${destination}:status`,
  destination,
  kind: 'status',
  payload: { kind: 'status', run: { runId: 'run_1', title: 'Fix it', state: 'QUEUED', pullRequests: [] }, receivedKey: `received:Ev1:${destination}` },
});
const notice: NewOutboxRow = { key: 'notice:1', destination: LINEAR, kind: 'notice', payload: { kind: 'notice', text: 'started from Slack' } };
const change = { phase: 'working', title: 'Fix it', opening: true, initiator: { platform: 'slack', id: 'U1' } };

/** Each row as `key` or `key+session` when it carries a session change. */
const shape = (rows: readonly NewOutboxRow[]) =>
  rows.map((row) => ((row.payload as Extract<OutboxMessage, { kind: 'status' }>).session ? `${row.key}+session` : row.key));

describe('foldSessionRows', () => {
  it.each([
    [
      'a session and a status at each place: one row per place',
      [...sessions, notice, status(SLACK), status(OTHER)],
      ['notice:1', `run:run_1:0:${SLACK}:status+session`, `run:run_1:0:${OTHER}:status+session`],
    ],
    [
      'a place without a status keeps its session row',
      [...sessions, status(SLACK)],
      [`run:run_1:0:${OTHER}:session:working`, `run:run_1:0:${SLACK}:status+session`],
    ],
    ['a status where no session is owed stays as it is', [status(LINEAR), notice], [`run:run_1:0:${LINEAR}:status`, 'notice:1']],
    ['nothing owed', [], []],
  ])('%s', (_name, rows, expected) => {
    expect(shape(foldSessionRows(rows))).toEqual(expected);
  });

  it('the status row carries what the session row said, without the place it already names', () => {
    const [folded] = foldSessionRows([sessions[0]!, status(SLACK)]);
    expect(folded).toEqual({ ...status(SLACK), payload: { ...(status(SLACK).payload as object), session: change } });
  });
});
