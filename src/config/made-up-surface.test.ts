import { describe, expect, it, vi } from 'vitest';
import { problemsOf, tempDir } from '../../test/config/helpers.js';
import { describeConfig, integrationSummary } from './describe-config.js';
import { SECRET_VARIABLES } from './env-schema.js';
import { loadConfig } from './load-config.js';
import { secretValues } from './secret-values.js';

/*
 * A surface is its folder, its module and a line in the list: the configuration asks the list, so a
 * made-up second chat surface (test/config/made-up-surface.ts) added to it gets its variables checked,
 * its section read, its companion place and schedule key honoured, and its part of config check, the
 * summary, the warnings and the log scrubber — with nothing of src/config/ changed.
 */
vi.mock('../surface-list.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../surface-list.js')>();
  const { parleyModule } = await import('../../test/config/made-up-surface.js');
  return { ...original, SURFACE_MODULES: [...original.SURFACE_MODULES, parleyModule] };
});

const F = 'agent-bridge.yml';
const PARLEY = { PARLEY_APP_ID: 'parley-app-1', PARLEY_APP_PASSWORD: 'parley-password-made-up-0123' };
const SLACK = { SLACK_BOT_TOKEN: 'xoxb-made-up-surface', SLACK_SIGNING_SECRET: 'made-up-surface-signing' };
const LINEAR = { LINEAR_API_KEY: 'lin_api_made_up_surface', LINEAR_WEBHOOK_SECRET: 'made-up-surface-linear' };
const CHANNEL = '19:general@thread.tacv2';

const load = (env: Record<string, string>, yaml?: string) => loadConfig({ env, cwd: tempDir(yaml === undefined ? {} : { [F]: yaml }) });
const parleyOf = (config: object) => (config as Record<string, unknown>)['parley'];

describe('a surface added to the list', () => {
  it('has its variables checked one by one, with where to find the value, and as a set', () => {
    expect(problemsOf(() => load({ ...PARLEY, PARLEY_APP_PASSWORD: 'pasted with a space' }))).toEqual([
      {
        where: 'PARLEY_APP_PASSWORD',
        message: 'contains a space or line break — set the bare value only',
        hint: 'find it under Credentials of your Parley app',
      },
    ]);
    expect(problemsOf(() => load({ PARLEY_APP_ID: 'parley-app-1' })).map((problem) => problem.where)).toEqual(['PARLEY_APP_PASSWORD']);
  });

  it('has its section of the file, after the others, with its routes and their approval asked of the approvers’ surface', () => {
    const config = load({ ...SLACK, ...PARLEY }, `parley:\n  channels:\n    "${CHANNEL}": { approval: { approvers: [U0LEAD0001] } }\n`);
    expect(parleyOf(config)).toEqual({
      enabled: true,
      appId: 'parley-app-1',
      password: PARLEY.PARLEY_APP_PASSWORD,
      channels: { [CHANNEL]: { approval: { approvers: ['U0LEAD0001'], expiresMs: 86_400_000, approverPlaces: ['slack:U0LEAD0001'] } } },
    });
    const [unknown] = problemsOf(() => load(PARLEY, 'parley: { chanels: {} }'));
    expect(unknown).toEqual({
      where: `${F}: parley.chanels`,
      message: 'unknown key — remove it or fix its spelling',
      hint: 'did you mean "channels"? allowed here: channels',
    });
    const [notAMapping] = problemsOf(() => load({}, '- a\n'));
    expect(notAMapping?.message).toContain('jira, parley, schedules');
  });

  it('is a companion place a tracker’s route may name: its runs get a thread there, its approval is posted there, and it is not taken for a Slack channel', () => {
    const config = load(
      { ...SLACK, ...LINEAR, ...PARLEY },
      `linear:\n  labels:\n    agent: { parley_channel: "${CHANNEL}", approval: { approvers: [U0LEAD0001] } }\n`,
    );
    expect(config.linear.labels['agent']?.approval?.place).toBe(`parley:${CHANNEL}`);
    expect(config.linear.companions).toEqual({ agent: [`parley:${CHANNEL}`] });
  });

  it('takes a schedule’s notify key, and refuses its places while it is off', () => {
    const yaml = `schedules:\n  - { name: nightly, cron: "0 3 * * *", prompt: p, notify: { parley_channel: "${CHANNEL}" } }\nlinear:\n  labels:\n    agent: { parley_channel: "${CHANNEL}" }\n`;
    expect(load({ ...LINEAR, ...PARLEY }, yaml).schedules[0]?.notify).toEqual({ parleyChannel: CHANNEL });
    expect(problemsOf(() => load(LINEAR, yaml))).toEqual([
      {
        where: `${F}: schedules[0].notify.parley_channel`,
        message: 'schedule "nightly" reports to a Parley channel, but Parley is off',
        hint: 'turn Parley on with PARLEY_APP_ID and PARLEY_APP_PASSWORD, or remove notify.parley_channel',
      },
      {
        where: `${F}: linear.labels.agent.parley_channel`,
        message: 'names a Parley channel for its runs, but Parley is off: nothing could be posted there',
        hint: 'turn Parley on with PARLEY_APP_ID and PARLEY_APP_PASSWORD, or remove parley_channel',
      },
    ]);
  });

  it('is in config check (its secret masked), the summary, the warnings and what the logger scrubs', () => {
    const config = load(PARLEY);
    const described = describeConfig(config);
    expect(Object.keys(described).slice(2, 9)).toEqual(['slack', 'teams', 'linear', 'github', 'gitlab', 'jira', 'parley']);
    expect(described['parley']).toEqual({ enabled: true, appId: 'parley-app-1', password: 'set (from env), 28 characters', channels: {} });
    expect(JSON.stringify(described)).not.toContain(PARLEY.PARLEY_APP_PASSWORD);
    expect(integrationSummary(config)[7]).toBe('Parley: on (channels: no routes (defaults everywhere))');
    expect(config.warnings).toEqual([expect.objectContaining({ where: `${F}: parley.channels`, message: 'Parley is on, but no channel is listed' })]);
    expect(SECRET_VARIABLES).toContain('PARLEY_APP_PASSWORD');
    expect(secretValues(config)).toContain(PARLEY.PARLEY_APP_PASSWORD);
  });
});
