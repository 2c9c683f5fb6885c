import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';
import { SqliteStore } from './sqlite-store.js';

/*
 * Migration 0005 on a database written before it: Linear anchors by identifier become anchors by
 * issue id wherever the stored rows tell the id, and workflow moves move from event keys to the run.
 */

const ID_1 = '5e0c1a2b-3c4d-4e5f-8a9b-000000000001';
const ID_10 = '5e0c1a2b-3c4d-4e5f-8a9b-000000000010';

function before0005(): Database.Database {
  const db = new Database(':memory:');
  migrate(
    db,
    () => 1,
    MIGRATIONS.filter((migration) => migration.id < 5),
  );
  const trigger = db.prepare(
    `INSERT INTO triggers (key, kind, source, anchor, payload, state, next_attempt_at, received_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 0, 0, 0)`,
  );
  trigger.run(
    'linear:label:a',
    'start',
    'linear',
    'linear:ENG-1',
    JSON.stringify({ destinations: ['linear:ENG-1'], reference: { issueId: ID_1, identifier: 'ENG-1' } }),
    'done',
  );
  trigger.run('linear:unlabel:a', 'cancel', 'linear', 'linear:ENG-1', '{}', 'pending');
  // ENG-10's id is known only from its start comment's delivery result.
  trigger.run('linear:label:b', 'start', 'linear', 'linear:ENG-10', JSON.stringify({ destinations: ['linear:ENG-10'], reference: {} }), 'done');
  // Nothing stored says which issue ENG-2 is.
  trigger.run('linear:comment:c', 'followup', 'linear', 'linear:ENG-2', JSON.stringify({ message: 'hi' }), 'done');
  trigger.run('slack:msg:C1:1.1', 'start', 'slack', 'slack:C1:1.1', JSON.stringify({ destinations: ['slack:C1:1.1'] }), 'done');

  const run = db.prepare(
    `INSERT INTO tracked_runs (run_id, anchor, source, title, route, destinations, trigger_key, state, created_at, updated_at)
     VALUES (?, ?, 'linear', ?, '{}', ?, ?, 'INPROGRESS', 0, 0)`,
  );
  run.run('run_1', 'linear:ENG-1', 'ENG-1: Fix it', JSON.stringify(['slack:C9:1.2', 'linear:ENG-1']), 'linear:label:a');
  run.run('run_10', 'linear:ENG-10', 'ENG-10: Other', JSON.stringify(['linear:ENG-10']), 'linear:label:b');
  run.run('run_2', 'linear:ENG-2', 'ENG-2: Unknown', JSON.stringify(['linear:ENG-2']), null);
  for (const [anchor, runId] of [
    ['linear:ENG-1', 'run_1'],
    ['linear:ENG-10', 'run_10'],
    ['linear:ENG-2', 'run_2'],
  ]) {
    db.prepare('INSERT INTO anchors (anchor, run_id, updated_at) VALUES (?, ?, 0)').run(anchor, runId);
    db.prepare('INSERT INTO anchor_runs (anchor, run_id, linked_at) VALUES (?, ?, 0)').run(anchor, runId);
  }

  const row = db.prepare(
    `INSERT INTO outbox (key, destination, kind, payload, state, next_attempt_at, result, created_at)
     VALUES (?, ?, ?, ?, ?, 0, ?, 0)`,
  );
  row.run(
    'received:linear:label:a:linear:ENG-1',
    'linear:ENG-1',
    'received',
    '{"kind":"received","title":"ENG-1: Fix it"}',
    'sent',
    JSON.stringify({ commentId: 'c-1', issueId: ID_1 }),
  );
  row.run(
    'run:run_1:1:linear:ENG-1:status',
    'linear:ENG-1',
    'status',
    JSON.stringify({ kind: 'status', receivedKey: 'received:linear:label:a:linear:ENG-1' }),
    'pending',
    null,
  );
  row.run(
    'received:linear:label:b:linear:ENG-10',
    'linear:ENG-10',
    'received',
    '{"kind":"received","title":"ENG-10: Other"}',
    'sent',
    JSON.stringify({ commentId: 'c-10', issueId: ID_10 }),
  );
  row.run(
    'run:run_1:1:slack:C9:1.2:status',
    'slack:C9:1.2',
    'status',
    JSON.stringify({ kind: 'status', receivedKey: 'received:linear:label:a:slack:C9:1.2' }),
    'pending',
    null,
  );

  const key = db.prepare('INSERT INTO event_keys (key, seen_at) VALUES (?, 0)');
  for (const name of ['linear:moved:started:run_1', 'linear:moved:pull_request:run_1', 'linear:moved:started:run_gone', 'linear:delivery:d1']) key.run(name);
  return db;
}

describe('migration 0005: Linear issue ids and workflow moves', () => {
  it('rewrites every anchor and destination whose issue id is known, and leaves the rest', async () => {
    const db = before0005();
    // 5 and every later migration.
    expect(migrate(db, () => 2)).toEqual(MIGRATIONS.filter((m) => m.id >= 5).map((m) => m.id));
    const store = new SqliteStore(db);

    expect(await store.anchors.currentRun(`linear:${ID_1}`)).toBe('run_1');
    expect(await store.anchors.currentRun(`linear:${ID_10}`)).toBe('run_10');
    expect(await store.anchors.history(`linear:${ID_1}`)).toEqual([{ runId: 'run_1', linkedAt: 0 }]);
    expect(await store.anchors.currentRun('linear:ENG-1')).toBeUndefined();
    expect(await store.anchors.currentRun('linear:ENG-2')).toBe('run_2');

    expect(await store.trackedRuns.get('run_1')).toMatchObject({
      anchor: `linear:${ID_1}`,
      destinations: ['slack:C9:1.2', `linear:${ID_1}`],
      title: 'ENG-1: Fix it',
    });
    expect(await store.trackedRuns.get('run_10')).toMatchObject({ anchor: `linear:${ID_10}`, destinations: [`linear:${ID_10}`] });
    expect(await store.trackedRuns.get('run_2')).toMatchObject({ anchor: 'linear:ENG-2', destinations: ['linear:ENG-2'] });

    expect(await store.triggers.getByKey('linear:label:a')).toMatchObject({ anchor: `linear:${ID_1}`, payload: { destinations: [`linear:${ID_1}`] } });
    expect((await store.triggers.getByKey('linear:unlabel:a'))?.anchor).toBe(`linear:${ID_1}`);
    expect((await store.triggers.getByKey('linear:comment:c'))?.anchor).toBe('linear:ENG-2');
    expect(await store.triggers.getByKey('slack:msg:C1:1.1')).toMatchObject({ anchor: 'slack:C1:1.1', payload: { destinations: ['slack:C1:1.1'] } });

    // The run's later edits find the start comment under the key the tracker now computes.
    const received = await store.outbox.getByKey(`received:linear:label:a:linear:${ID_1}`);
    expect(received).toMatchObject({ destination: `linear:${ID_1}`, result: { commentId: 'c-1', issueId: ID_1 } });
    expect(await store.outbox.getByKey(`run:run_1:1:linear:${ID_1}:status`)).toMatchObject({
      destination: `linear:${ID_1}`,
      payload: { kind: 'status', receivedKey: `received:linear:label:a:linear:${ID_1}` },
    });
    expect(await store.outbox.getByKey(`received:linear:label:b:linear:${ID_10}`)).toBeDefined();
    expect(await store.outbox.getByKey('run:run_1:1:slack:C9:1.2:status')).toMatchObject({ payload: { receivedKey: 'received:linear:label:a:slack:C9:1.2' } });
    expect((await store.outbox.list()).filter((row) => /linear:ENG-1\b/.test(row.key))).toEqual([]);
    await store.close();
  });

  it('moves recorded workflow moves to their run and drops the event keys', async () => {
    const db = before0005();
    migrate(db, () => 2);
    const store = new SqliteStore(db);
    expect((await store.trackedRuns.get('run_1'))?.workflowMoves).toEqual(['started', 'pull_request']);
    expect((await store.trackedRuns.get('run_10'))?.workflowMoves).toEqual([]);
    expect(await store.eventKeys.has('linear:moved:started:run_1')).toBe(false);
    expect(await store.eventKeys.has('linear:moved:started:run_gone')).toBe(false);
    expect(await store.eventKeys.has('linear:delivery:d1')).toBe(true);

    expect(await store.trackedRuns.recordWorkflowMove('run_10', 'started', 5)).toBe(true);
    expect(await store.trackedRuns.recordWorkflowMove('run_10', 'started', 6)).toBe(false);
    expect(await store.trackedRuns.recordWorkflowMove('run_unknown', 'started', 6)).toBe(false);
    expect((await store.trackedRuns.get('run_10'))?.workflowMoves).toEqual(['started']);
    await store.close();
  });
});
