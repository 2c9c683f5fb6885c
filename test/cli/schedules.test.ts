import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli as runCliChild, tempDir } from '../helpers/spawn-cli.js';
import { runCliInProcess } from '../helpers/cli-context.js';

const CONFIG = `
schedules:
  - name: nightly-deps
    cron: "0 3 * * 1-5"
    timezone: Europe/Berlin
    prompt: Update the dependencies and open a pull request.
    notify: { slack_channel: C0999ZZZZ }
  - name: standup
    cron: "30 9 * * *"
    timezone: America/New_York
    prompt: Summarise yesterday's merged pull requests.
    catch_up: latest
`;

/** Thursday 2026-03-26 12:00 UTC: Berlin changes to summer time on Sunday, New York already did. */
const NOW = Date.parse('2026-03-26T12:00:00Z');

let cwd: string;
let env: Record<string, string>;
beforeEach(() => {
  cwd = tempDir();
  writeFileSync(join(cwd, 'agent-bridge.yml'), CONFIG);
  env = { DATABASE_PATH: join(cwd, 'data', 'bridge.db') };
});

/** The command tree in-process, with the clock fixed at `now`. */
const cli = (args: string[], now = NOW) => runCliInProcess(args, env, cwd, now);

describe('agent-bridge schedules list', () => {
  it('shows cron, timezone, the next three fire times in the schedule’s zone and UTC, and no history before the database exists', async () => {
    const result = await cli(['schedules', 'list']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        `No database at ${env['DATABASE_PATH']} yet: no fires recorded.`,
        '',
        'nightly-deps: active',
        '  cron:  0 3 * * 1-5 (Europe/Berlin)',
        '  next:  Fri 2026-03-27 03:00 +01:00 = 2026-03-27 02:00 UTC',
        '         Mon 2026-03-30 03:00 +02:00 = 2026-03-30 01:00 UTC',
        '         Tue 2026-03-31 03:00 +02:00 = 2026-03-31 01:00 UTC',
        '  last:  never fired',
        '',
        'standup: active',
        '  cron:  30 9 * * * (America/New_York)',
        '  next:  Thu 2026-03-26 09:30 -04:00 = 2026-03-26 13:30 UTC',
        '         Fri 2026-03-27 09:30 -04:00 = 2026-03-27 13:30 UTC',
        '         Sat 2026-03-28 09:30 -04:00 = 2026-03-28 13:30 UTC',
        '  last:  never fired',
      ].join('\n'),
    );
    expect(existsSync(env['DATABASE_PATH']!)).toBe(false);
  });

  it('--json prints an array only, with times in UTC and in the schedule’s zone', async () => {
    const result = await cli(['schedules', 'list', '--json']);
    expect(result.code).toBe(0);
    const listed = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
    expect(listed).toHaveLength(2);
    expect(listed[0]).toEqual({
      name: 'nightly-deps',
      cron: '0 3 * * 1-5',
      timezone: 'Europe/Berlin',
      enabled: true,
      paused: false,
      next: [
        { slot: '2026-03-27T03:00:00', at: '2026-03-27T02:00:00.000Z', local: '2026-03-27T03:00:00+01:00' },
        { slot: '2026-03-30T03:00:00', at: '2026-03-30T01:00:00.000Z', local: '2026-03-30T03:00:00+02:00' },
        { slot: '2026-03-31T03:00:00', at: '2026-03-31T01:00:00.000Z', local: '2026-03-31T03:00:00+02:00' },
      ],
      last: null,
    });
  });

  it('says when no schedules are configured', async () => {
    writeFileSync(join(cwd, 'agent-bridge.yml'), 'schedules: []\n');
    const result = await cli(['schedules', 'list']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`No schedules configured in ${join(cwd, 'agent-bridge.yml')}.`);
  });
});

describe('agent-bridge schedules trigger / pause / resume', () => {
  it('round-trips: trigger records a fire, overlap skips the next, pause and resume show in the list', async () => {
    const fired = await cli(['schedules', 'trigger', 'nightly-deps']);
    expect(fired.stderr).toBe('');
    expect(fired.code).toBe(0);
    expect(fired.stdout).toMatch(
      /^Fired nightly-deps \(slot manual:2026-03-26T12:00:00\.000Z\)\.\nThe trigger is stored in .*bridge\.db; the running agent-bridge service .* reports to slack:C0999ZZZZ\.$/,
    );
    expect((await cli(['schedules', 'list'])).stdout).toContain(
      '  last:  slot manual:2026-03-26T12:00:00.000Z, fired 2026-03-26 12:00 UTC: starting (the service creates the run)',
    );

    const again = await cli(['schedules', 'trigger', 'nightly-deps'], NOW + 1000);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('Did not fire nightly-deps: overlap: skip — the previous fire (manual:2026-03-26T12:00:00.000Z) is still starting its run.');

    const paused = await cli(['schedules', 'pause', 'nightly-deps'], NOW + 2000);
    expect(paused).toMatchObject({ code: 0, stdout: 'Paused nightly-deps: its slots are skipped until `agent-bridge schedules resume nightly-deps`.' });
    expect((await cli(['schedules', 'pause', 'nightly-deps'])).stdout).toBe('nightly-deps is already paused (paused with `agent-bridge schedules pause`).');
    expect((await cli(['schedules', 'list'])).stdout).toContain(
      'nightly-deps: PAUSED since 2026-03-26 12:00:02 UTC (paused with `agent-bridge schedules pause`) — resume with `agent-bridge schedules resume nightly-deps`',
    );
    const json = JSON.parse((await cli(['schedules', 'list', '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(json[0]).toMatchObject({
      paused: true,
      paused_since: '2026-03-26T12:00:02.000Z',
      last: { status: 'skipped', slot: 'manual:2026-03-26T12:00:01.000Z', run_id: null },
    });

    const resumed = await cli(['schedules', 'resume', 'nightly-deps']);
    expect(resumed).toMatchObject({ code: 0, stdout: 'Resumed nightly-deps. Next fire: Fri 2026-03-27 03:00 +01:00 = 2026-03-27 02:00 UTC.' });
    expect((await cli(['schedules', 'resume', 'nightly-deps'])).stdout).toBe('nightly-deps is not paused.');
    expect((await cli(['schedules', 'list'])).stdout).toContain('nightly-deps: active');
  });

  it.each([['trigger'], ['pause'], ['resume']])('%s of an unknown schedule exits 2 naming the configured ones', async (command) => {
    const result = await cli(['schedules', command, 'nightly']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`agent-bridge: no schedule named "nightly" in ${join(cwd, 'agent-bridge.yml')}; configured: nightly-deps, standup`);
    expect(existsSync(env['DATABASE_PATH']!)).toBe(false);
  });

  it('a missing name is a usage error', async () => {
    expect((await cli(['schedules', 'trigger'])).code).toBe(2);
  });
});

describe('config check on schedules', () => {
  it('names the schedule of a bad cron, an unknown timezone and a duplicate name', async () => {
    writeFileSync(
      join(cwd, 'agent-bridge.yml'),
      [
        'schedules:',
        '  - { name: nightly, cron: "0 25 * * *", prompt: p }',
        '  - { name: standup, cron: "0 9 * * *", timezone: Mars/Olympus, prompt: p }',
        '  - { name: nightly, cron: "0 3 * * *", prompt: p }',
      ].join('\n'),
    );
    const result = await cli(['config', 'check']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/schedules\[0\]\.cron.*schedule "nightly": cron "0 25 \* \* \*": hour "25" is out of range/);
    expect(result.stderr).toMatch(/schedules\[1\]\.timezone.*schedule "standup": is not an IANA time zone/);
    expect(result.stderr).toMatch(/schedules\[2\]\.name.*duplicate schedule name "nightly"/);
  });
});

describe('the executable', () => {
  it('lists schedules and has --help on each subcommand', async () => {
    const list = await runCliChild(['schedules', 'list'], { cwd, env });
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /^nightly-deps: active\n {2}cron: {2}0 3 \* \* 1-5 \(Europe\/Berlin\)\n {2}next: {2}\w{3} \d{4}-\d\d-\d\d 03:00 \+0[12]:00 = \d{4}-\d\d-\d\d 0[12]:00 UTC$/m,
    );
    for (const command of ['list', 'trigger', 'pause', 'resume']) {
      const help = await cli(['schedules', command, '--help']);
      expect(help.code).toBe(0);
    }
  });
});
