import { describe, expect, it } from 'vitest';
import { problemsOf, tempDir } from '../../test/config/helpers.js';
import { loadConfig } from './load-config.js';

/*
 * A place on a surface that is off (a Slack channel while SLACK_BOT_TOKEN is unset, a Linear issue
 * while Linear is off) stops the start, naming the key and what to turn on: every message owed
 * there would otherwise fail at delivery, run after run.
 */

const F = 'agent-bridge.yml';
const SLACK = { SLACK_BOT_TOKEN: 'xoxb-surfaces-off-test', SLACK_SIGNING_SECRET: 'surfaces-off-signing-secret' };
const LINEAR = { LINEAR_API_KEY: 'lin_api_surfaces_off_test', LINEAR_WEBHOOK_SECRET: 'surfaces-off-linear-secret' };

const load = (yaml: string, env: Record<string, string> = {}) => loadConfig({ env, cwd: tempDir({ [F]: yaml }) });
const schedule = (notify: string, extra = '') =>
  `schedules:\n  - name: nightly\n    cron: "0 3 * * *"\n    prompt: Update the dependencies.\n    notify: ${notify}\n${extra}`;

describe('a place on a surface that is off', () => {
  it.each([
    [
      "a schedule's notify.slack_channel",
      schedule('{ slack_channel: C0999ZZZZ }'),
      `${F}: schedules[0].notify.slack_channel`,
      /^schedule "nightly" reports to a Slack channel, but Slack is off \(SLACK_BOT_TOKEN is not set\)/,
      /turn Slack on with SLACK_BOT_TOKEN .*or remove notify\.slack_channel/,
    ],
    [
      "a disabled schedule's (it still fires on schedules trigger)",
      schedule('{ slack_channel: C0999ZZZZ }', '    enabled: false\n'),
      `${F}: schedules[0].notify.slack_channel`,
      /Slack is off/,
      /SLACK_BOT_TOKEN/,
    ],
    [
      "a schedule's notify.linear_issue",
      schedule('{ linear_issue: ENG-42 }'),
      `${F}: schedules[0].notify.linear_issue`,
      /^schedule "nightly" reports to a Linear issue, but Linear is off/,
      /turn Linear on with LINEAR_API_KEY \(or LINEAR_ACCESS_TOKEN\) and LINEAR_WEBHOOK_SECRET, or remove notify\.linear_issue/,
    ],
    [
      "a Linear label's slack_channel",
      'linear:\n  labels:\n    agent: { slack_channel: C0456API1 }\n',
      `${F}: linear.labels.agent.slack_channel`,
      /Slack is off \(SLACK_BOT_TOKEN is not set\): nothing could be posted there/,
      /or remove slack_channel/,
    ],
    [
      "a Jira label's slack_channel",
      'jira:\n  labels:\n    agent: { slack_channel: C0456API1 }\n',
      `${F}: jira.labels.agent.slack_channel`,
      /Slack is off/,
      /SLACK_BOT_TOKEN/,
    ],
    [
      "a GitHub repository's slack_channel",
      'github:\n  repos:\n    acme/web: { slack_channel: C0456API1 }\n',
      `${F}: github.repos["acme/web"].slack_channel`,
      /Slack is off/,
      /SLACK_BOT_TOKEN/,
    ],
    [
      "a GitHub label's slack_channel",
      'github:\n  labels:\n    Ship: { slack_channel: C0456API1 }\n',
      `${F}: github.labels.Ship.slack_channel`,
      /Slack is off/,
      /SLACK_BOT_TOKEN/,
    ],
    [
      "a Slack channel route's approval",
      'slack:\n  channels:\n    C0PROD0001: { approval: { approvers: [U0LEAD0001] } }\n',
      `${F}: slack.channels.C0PROD0001.approval`,
      /needs Slack: approvers are asked there/,
      /or remove approval/,
    ],
  ])('refuses %s, naming the key and what to turn on', (_what, yaml, where, message, hint) => {
    const problems = problemsOf(() => load(yaml));
    const problem = problems.find((p) => p.where === where);
    expect(problem, JSON.stringify(problems)).toBeDefined();
    expect(problem?.message).toMatch(message);
    expect(problem?.hint).toMatch(hint);
  });

  it.each([
    ["a schedule's notify.slack_channel with Slack on", schedule('{ slack_channel: C0999ZZZZ }'), SLACK],
    [
      "a schedule's notify.slack_channel with Slack in Socket Mode",
      schedule('{ slack_channel: C0999ZZZZ }'),
      { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' },
    ],
    ["a schedule's notify.linear_issue with Linear on", schedule('{ linear_issue: ENG-42 }'), LINEAR],
    [
      "a schedule's notify.linear_issue with Linear on by its access token",
      schedule('{ linear_issue: ENG-42 }'),
      { ...LINEAR, LINEAR_API_KEY: '', LINEAR_ACCESS_TOKEN: 'lin_oauth_1' },
    ],
    ['both places with both on', schedule('{ slack_channel: C0999ZZZZ, linear_issue: ENG-42 }'), { ...SLACK, ...LINEAR }],
    ["a Linear label's slack_channel with Slack on", 'linear:\n  labels:\n    agent: { slack_channel: C0456API1 }\n', SLACK],
    ['a schedule that notifies nobody (its runs are logged)', schedule('{}'), {}],
  ])('accepts %s', (_what, yaml, env) => {
    expect(load(yaml, env).configFile).toMatch(/agent-bridge\.yml$/);
  });

  it('is left to the service by a command that only reads the database (delivers: false)', () => {
    const config = loadConfig({ env: {}, cwd: tempDir({ [F]: schedule('{ slack_channel: C0999ZZZZ, linear_issue: ENG-42 }') }), delivers: false });
    expect(config.schedules[0]?.notify).toEqual({ slackChannel: 'C0999ZZZZ', linearIssue: 'ENG-42' });
  });

  it('is said with every other problem of the same start, even when the environment is wrong too', () => {
    const problems = problemsOf(() => load(schedule('{ slack_channel: C0999ZZZZ, linear_issue: ENG-42 }'), { PORT: 'eighty' }));
    expect(problems.map((p) => p.where)).toEqual(
      expect.arrayContaining(['PORT', `${F}: schedules[0].notify.slack_channel`, `${F}: schedules[0].notify.linear_issue`]),
    );
  });
});
