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
  const { teamsModule } = await import('../../test/config/made-up-surface.js');
  return { ...original, SURFACE_MODULES: [...original.SURFACE_MODULES, teamsModule] };
});

const F = 'agent-bridge.yml';
const TEAMS = { TEAMS_APP_ID: 'teams-app-1', TEAMS_APP_PASSWORD: 'teams-password-made-up-0123' };
const SLACK = { SLACK_BOT_TOKEN: 'xoxb-made-up-surface', SLACK_SIGNING_SECRET: 'made-up-surface-signing' };
const LINEAR = { LINEAR_API_KEY: 'lin_api_made_up_surface', LINEAR_WEBHOOK_SECRET: 'made-up-surface-linear' };
const CHANNEL = '19:general@thread.tacv2';

const load = (env: Record<string, string>, yaml?: string) => loadConfig({ env, cwd: tempDir(yaml === undefined ? {} : { [F]: yaml }) });
const teamsOf = (config: object) => (config as Record<string, unknown>)['teams'];

describe('a surface added to the list', () => {
  it('has its variables checked one by one, with where to find the value, and as a set', () => {
    expect(problemsOf(() => load({ ...TEAMS, TEAMS_APP_PASSWORD: 'pasted with a space' }))).toEqual([
      {
        where: 'TEAMS_APP_PASSWORD',
        message: 'contains a space or line break — set the bare value only',
        hint: 'find it under Certificates & secrets of your Azure bot',
      },
    ]);
    expect(problemsOf(() => load({ TEAMS_APP_ID: 'teams-app-1' })).map((problem) => problem.where)).toEqual(['TEAMS_APP_PASSWORD']);
  });

  it('has its section of the file, after the others, with its routes and their approval asked of the approvers’ surface', () => {
    const config = load({ ...SLACK, ...TEAMS }, `teams:\n  channels:\n    "${CHANNEL}": { approval: { approvers: [U0LEAD0001] } }\n`);
    expect(teamsOf(config)).toEqual({
      enabled: true,
      appId: 'teams-app-1',
      password: TEAMS.TEAMS_APP_PASSWORD,
      channels: { [CHANNEL]: { approval: { approvers: ['U0LEAD0001'], expiresMs: 86_400_000, approverPlaces: ['slack:U0LEAD0001'] } } },
    });
    const [unknown] = problemsOf(() => load(TEAMS, 'teams: { chanels: {} }'));
    expect(unknown).toEqual({
      where: `${F}: teams.chanels`,
      message: 'unknown key — remove it or fix its spelling',
      hint: 'did you mean "channels"? allowed here: channels',
    });
    const [notAMapping] = problemsOf(() => load({}, '- a\n'));
    expect(notAMapping?.message).toContain('jira, teams, schedules');
  });

  it('is a companion place a tracker’s route may name: its runs get a thread there, its approval is posted there, and it is not taken for a Slack channel', () => {
    const config = load(
      { ...SLACK, ...LINEAR, ...TEAMS },
      `linear:\n  labels:\n    agent: { teams_channel: "${CHANNEL}", approval: { approvers: [U0LEAD0001] } }\n`,
    );
    expect(config.linear.labels['agent']?.approval?.place).toBe(`teams:${CHANNEL}`);
    expect(config.linear.companions).toEqual({ agent: [`teams:${CHANNEL}`] });
  });

  it('takes a schedule’s notify key, and refuses its places while it is off', () => {
    const yaml = `schedules:\n  - { name: nightly, cron: "0 3 * * *", prompt: p, notify: { teams_channel: "${CHANNEL}" } }\nlinear:\n  labels:\n    agent: { teams_channel: "${CHANNEL}" }\n`;
    expect(load({ ...LINEAR, ...TEAMS }, yaml).schedules[0]?.notify).toEqual({ teamsChannel: CHANNEL });
    expect(problemsOf(() => load(LINEAR, yaml))).toEqual([
      {
        where: `${F}: schedules[0].notify.teams_channel`,
        message: 'schedule "nightly" reports to a Teams channel, but Teams is off',
        hint: 'turn Teams on with TEAMS_APP_ID and TEAMS_APP_PASSWORD, or remove notify.teams_channel',
      },
      {
        where: `${F}: linear.labels.agent.teams_channel`,
        message: 'names a Teams channel for its runs, but Teams is off: nothing could be posted there',
        hint: 'turn Teams on with TEAMS_APP_ID and TEAMS_APP_PASSWORD, or remove teams_channel',
      },
    ]);
  });

  it('is in config check (its secret masked), the summary, the warnings and what the logger scrubs', () => {
    const config = load(TEAMS);
    const described = describeConfig(config);
    expect(Object.keys(described).slice(2, 7)).toEqual(['slack', 'linear', 'github', 'jira', 'teams']);
    expect(described['teams']).toEqual({ enabled: true, appId: 'teams-app-1', password: 'set (from env), 27 characters', channels: {} });
    expect(JSON.stringify(described)).not.toContain(TEAMS.TEAMS_APP_PASSWORD);
    expect(integrationSummary(config)[5]).toBe('Teams: on (channels: no routes (defaults everywhere))');
    expect(config.warnings).toEqual([expect.objectContaining({ where: `${F}: teams.channels`, message: 'Teams is on, but no channel is listed' })]);
    expect(SECRET_VARIABLES).toContain('TEAMS_APP_PASSWORD');
    expect(secretValues(config)).toContain(TEAMS.TEAMS_APP_PASSWORD);
  });
});
