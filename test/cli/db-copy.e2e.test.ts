import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotifierError } from '../../src/core/ports/notifier.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { RecordingNotifier } from '../core/recording-notifier.js';
import { cliStart } from '../helpers/cli-triggers.js';
import { postgresSkipNote, requirePostgres, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { runCli, tempDir } from '../helpers/spawn-cli.js';
import { startBridge } from '../helpers/start-bridge.js';
import { until } from '../helpers/until.js';

/*
 * Moving an installation: a service runs on SQLite until it has a run in flight and
 * messages it still owes (its notifier is down), and stops. `agent-bridge db copy` moves the database
 * into an empty PostgreSQL database, printing the counts it checked; the service started on
 * PostgreSQL carries on: the run is still tracked and announced, the owed messages are delivered, no
 * second run is created. A second copy into the now filled database is refused.
 */
const API_KEY = 'db-copy-key-0123456789';
const DESTINATION = 'test:thread-copy';
const runs = requirePostgres('db copy');

describe.skipIf(!runs)(`agent-bridge db copy${postgresSkipNote()}`, () => {
  let server: PostgresServer;
  let emulator: RunningEmulator;
  beforeAll(async () => {
    server = await startPostgres();
    emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  });
  afterAll(async () => {
    await emulator?.close();
    await server?.stop();
  });

  it('moves a populated SQLite database, and the service carries on on PostgreSQL', async () => {
    const cwd = tempDir();
    const sqlitePath = join(cwd, 'bridge.db');
    const agentApi = { baseUrl: emulator.baseUrl, apiKey: API_KEY };
    const yaml = 'tracker:\n  interval: 1s\n';

    // 1. On SQLite: the run is created, but every message is still owed (the destination is down).
    const down = new RecordingNotifier('test', { failWith: () => new NotifierError('destination down', { code: 'unavailable', retryable: true }) });
    const first = await startBridge({ agentApi, cwd, yaml, overrides: { notifiers: [down] } });
    const trigger = cliStart('copy-1', 'Move me', DESTINATION);
    expect(await first.service.intake.submit(trigger)).toMatchObject({ accepted: true });
    await until(async () => (await first.service.store.trackedRuns.countTracked()) === 1, 'the run to be tracked on SQLite');
    await until(() => down.calls.length > 0, 'a failed delivery');
    await first.service.stop();
    const runId = emulator.engine.list({}).runs[0]!.run_id;
    const before = openSqliteStore({ path: sqlitePath });
    const owed = (await before.outbox.counts()).pending;
    await before.close();
    expect(owed).toBeGreaterThan(0);

    // 2. The copy, with the counts of both sides; then a second copy is refused.
    const url = await server.createDatabase({ name: 'moved' });
    const copy = await runCli(['db', 'copy', '--to', url], { cwd, env: { DATABASE_PATH: sqlitePath } });
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.stdout).toContain(`Copied ${sqlitePath} → ${url}`);
    expect(copy.stdout).toMatch(/^triggers\s+1\s+1$/m);
    expect(copy.stdout).toMatch(/^tracked_runs\s+1\s+1$/m);
    expect(copy.stdout).toMatch(new RegExp(`^outbox\\s+(\\d+)\\s+\\1$`, 'm'));
    expect(copy.stdout).toMatch(/All \d+ tables match/);
    const again = await runCli(['db', 'copy', '--to', url], { cwd, env: { DATABASE_PATH: sqlitePath } });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/The PostgreSQL database is not empty — rows in .*triggers \(1\)/);

    // 3. On PostgreSQL: the owed messages go out, the run is still tracked to its end, once.
    emulator.engine.drive(runId, 'INPROGRESS');
    const up = new RecordingNotifier('test');
    const second = await startBridge({ agentApi, cwd, yaml, env: { DATABASE_URL: url, DATABASE_PATH: '' }, overrides: { notifiers: [up] } });
    try {
      const messages = () => up.delivered.map((call) => call.message);
      const states = (kind: 'status' | 'announce') => messages().flatMap((message) => (message.kind === kind ? [message.run.state] : []));
      await until(() => messages().some((message) => message.kind === 'received'), 'the owed "received" message', 20_000);
      await until(() => states('status').includes('INPROGRESS'), 'the INPROGRESS status', 20_000);
      emulator.engine.drive(runId, 'SUCCEEDED');
      await until(() => states('announce').includes('SUCCEEDED'), 'the end announced', 20_000);
      expect(await second.service.store.trackedRuns.get(runId)).toMatchObject({ state: 'SUCCEEDED', tracked: false });
      expect(emulator.engine.list({}).runs).toHaveLength(1);
      expect(messages().filter((message) => message.kind === 'received')).toHaveLength(1);
      expect(states('announce')).toEqual(['SUCCEEDED']);
      const keys = up.delivered.map((call) => call.key);
      expect(new Set(keys).size).toBe(keys.length);
    } finally {
      await second.service.stop();
    }
  });
});
