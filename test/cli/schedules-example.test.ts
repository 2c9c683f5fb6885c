import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ROOT, runCli as runCliChild, tempDir } from '../helpers/spawn-cli.js';
import { runCliInProcess } from '../helpers/cli-context.js';

/*
 * The shipped example config (agent-bridge.example.yml at the repository root) is valid and its
 * schedules fire when it says. It is copied into an empty folder, so no .env or agent-bridge.yml of
 * the developer's takes part, and named with --config exactly as the README does.
 */

const EXAMPLE = 'agent-bridge.example.yml';
/** The example names Slack channels and Linear issues: the service needs both on (its header says so); listing does not. */
const SLACK_AND_LINEAR = {
  SLACK_BOT_TOKEN: 'xoxb-example-test',
  SLACK_SIGNING_SECRET: 'example-signing-secret',
  LINEAR_API_KEY: 'lin_api_example_test',
  LINEAR_WEBHOOK_SECRET: 'example-linear-secret',
};

let cwd: string;
let env: Record<string, string>;
beforeEach(() => {
  cwd = tempDir();
  copyFileSync(join(ROOT, EXAMPLE), join(cwd, EXAMPLE));
  env = { DATABASE_PATH: join(cwd, 'data', 'bridge.db') };
});

/** The command tree in-process, with the clock fixed at `now`. */
const cli = (args: string[], now: number) => runCliInProcess(args, env, cwd, now);

interface Listed {
  name: string;
  cron: string;
  timezone: string;
  enabled: boolean;
  paused: boolean;
  next: Array<{ slot: string; at: string; local: string }>;
  last: unknown;
}

const nextAt = (listed: Listed[], name: string) => listed.find((schedule) => schedule.name === name)?.next.map((slot) => slot.at);

describe(`agent-bridge schedules list --config ${EXAMPLE} --json`, () => {
  it.each([
    [
      // Thursday before Berlin's change to summer time (Sunday 2026-03-29); New York changed on 03-08.
      '2026-03-26T12:00:00.000Z',
      {
        'nightly-deps': ['2026-03-27T02:00:00.000Z', '2026-03-30T01:00:00.000Z', '2026-03-31T01:00:00.000Z'],
        'weekly-report': ['2026-03-30T13:30:00.000Z', '2026-04-06T13:30:00.000Z', '2026-04-13T13:30:00.000Z'],
        'flaky-test-triage': ['2026-03-26T18:00:00.000Z', '2026-03-27T00:00:00.000Z', '2026-03-27T06:00:00.000Z'],
      },
    ],
    [
      // Sunday a week before New York's change to summer time (Sunday 2026-03-08).
      '2026-03-01T12:00:00.000Z',
      {
        'nightly-deps': ['2026-03-02T02:00:00.000Z', '2026-03-03T02:00:00.000Z', '2026-03-04T02:00:00.000Z'],
        'weekly-report': ['2026-03-02T14:30:00.000Z', '2026-03-09T13:30:00.000Z', '2026-03-16T13:30:00.000Z'],
        'flaky-test-triage': ['2026-03-01T18:00:00.000Z', '2026-03-02T00:00:00.000Z', '2026-03-02T06:00:00.000Z'],
      },
    ],
    [
      // Thursday before Berlin's change back to winter time (Sunday 2026-10-25); New York's is on 11-01.
      '2026-10-22T12:00:00.000Z',
      {
        'nightly-deps': ['2026-10-23T01:00:00.000Z', '2026-10-26T02:00:00.000Z', '2026-10-27T02:00:00.000Z'],
        'weekly-report': ['2026-10-26T13:30:00.000Z', '2026-11-02T14:30:00.000Z', '2026-11-09T14:30:00.000Z'],
        'flaky-test-triage': ['2026-10-22T18:00:00.000Z', '2026-10-23T00:00:00.000Z', '2026-10-23T06:00:00.000Z'],
      },
    ],
  ])('at %s: the next three fire times of each zone’s schedule, in UTC', async (now, expected) => {
    const result = await cli(['schedules', 'list', '--config', EXAMPLE, '--json'], Date.parse(now));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const listed = JSON.parse(result.stdout) as Listed[];
    expect(listed.map((schedule) => [schedule.name, schedule.timezone, schedule.enabled])).toEqual([
      ['nightly-deps', 'Europe/Berlin', true],
      ['weekly-report', 'America/New_York', true],
      ['flaky-test-triage', 'UTC', true],
      ['monthly-cleanup', 'Europe/Berlin', false],
    ]);
    for (const [name, times] of Object.entries(expected)) expect(nextAt(listed, name), name).toEqual(times);
    // Listing reads only: no database is created for it.
    expect(existsSync(env['DATABASE_PATH']!)).toBe(false);
  });

  it('shows local times with their offsets across the Berlin change', async () => {
    const result = await cli(['schedules', 'list', '--config', EXAMPLE, '--json'], Date.parse('2026-03-26T12:00:00.000Z'));
    const listed = JSON.parse(result.stdout) as Listed[];
    expect(listed[0]).toMatchObject({
      name: 'nightly-deps',
      cron: '0 3 * * 1-5',
      paused: false,
      last: null,
      next: [
        { slot: '2026-03-27T03:00:00', at: '2026-03-27T02:00:00.000Z', local: '2026-03-27T03:00:00+01:00' },
        { slot: '2026-03-30T03:00:00', at: '2026-03-30T01:00:00.000Z', local: '2026-03-30T03:00:00+02:00' },
        { slot: '2026-03-31T03:00:00', at: '2026-03-31T01:00:00.000Z', local: '2026-03-31T03:00:00+02:00' },
      ],
    });
  });
});

describe(`agent-bridge config check --config ${EXAMPLE}`, () => {
  it('passes with Slack and Linear on, in-process and as the real executable (exit 0)', async () => {
    env = { ...env, ...SLACK_AND_LINEAR };
    const inProcess = await cli(['config', 'check', '--config', EXAMPLE, '--offline'], Date.parse('2026-03-26T12:00:00.000Z'));
    expect(inProcess.stderr).toBe('');
    expect(inProcess.code).toBe(0);
    expect(inProcess.stdout).toContain(`Configuration is valid (${join(cwd, EXAMPLE)})`);
    expect(inProcess.stdout).toContain('Schedules: 3 of 4 enabled');

    // --offline: with Linear on, config check would ask Linear whether linear.states exist.
    const child = await runCliChild(['config', 'check', '--config', EXAMPLE, '--offline'], { cwd, env });
    expect(child.stderr).toBe('');
    expect(child.code).toBe(0);
    expect(child.stdout).toMatch(/^Configuration is valid \(.*agent-bridge\.example\.yml\)\./);
  });

  it('with Slack and Linear off, exits 2 naming each Slack channel and Linear issue it names, and what to turn on', async () => {
    const result = await cli(['config', 'check', '--config', EXAMPLE, '--offline'], Date.parse('2026-03-26T12:00:00.000Z'));
    expect(result.code).toBe(2);
    const lines = result.stderr.split('\n').filter((line) => line.startsWith('  - '));
    expect(lines.map((line) => line.slice(4, line.indexOf(': ', line.indexOf(': ') + 2)))).toEqual([
      `${EXAMPLE}: schedules[0].notify.slack_channel`,
      `${EXAMPLE}: schedules[1].notify.linear_issue`,
      `${EXAMPLE}: schedules[2].notify.slack_channel`,
      `${EXAMPLE}: schedules[2].notify.linear_issue`,
      `${EXAMPLE}: linear.labels.agent.slack_channel`,
      `${EXAMPLE}: jira.labels.agent.slack_channel`,
    ]);
    for (const line of lines) expect(line).toMatch(/turn (Slack on with SLACK_BOT_TOKEN|Linear on with LINEAR_API_KEY)/);
  });
});
