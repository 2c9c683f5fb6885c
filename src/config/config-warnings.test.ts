import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/config/helpers.js';
import { loadConfig } from './load-config.js';

/*
 * A valid configuration that cannot do what it seems meant to: an integration on with nothing that
 * could start a run through it, or a mention link to a tracker that is off. It loads (exit 0), and
 * `warnings` says where and what to add.
 */

const F = 'agent-bridge.yml';
const PEM = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const GITHUB = { GITHUB_APP_ID: '123456', GITHUB_PRIVATE_KEY: PEM.trim().replace(/\n/g, '\\n'), GITHUB_WEBHOOK_SECRET: 'gh-warnings-secret-0123' };
const JIRA = {
  JIRA_BASE_URL: 'https://acme.atlassian.net',
  JIRA_EMAIL: 'bot@acme.example',
  JIRA_API_TOKEN: 'jira-warnings-token-0123',
  JIRA_WEBHOOK_SECRET: 'jira-warnings-secret-0123',
};
const SLACK = { SLACK_BOT_TOKEN: 'xoxb-warnings-test', SLACK_SIGNING_SECRET: 'warnings-signing-secret' };
const LINEAR = { LINEAR_API_KEY: 'lin_api_warnings_test', LINEAR_WEBHOOK_SECRET: 'warnings-linear-secret' };

const warningsOf = (env: Record<string, string>, yaml?: string) => loadConfig({ env, cwd: tempDir(yaml === undefined ? {} : { [F]: yaml }) }).warnings ?? [];

describe('configWarnings', () => {
  it.each([
    [
      'GitHub on without a config file',
      GITHUB,
      undefined,
      `${F}: github.repos`,
      /^GitHub is on, but no repository is listed: every repository is ignored, so nothing/,
    ],
    [
      'GitHub on with labels but no repository',
      GITHUB,
      'github: { labels: { agent: {} } }',
      `${F}: github.repos`,
      /every repository is ignored \(a trigger label counts only on a repository listed there\)/,
    ],
    [
      'Jira on without labels',
      JIRA,
      'jira: { projects: [ENG] }',
      `${F}: jira.labels`,
      /^Jira is on, but no trigger label is listed: .*"@agent new <what to do>"/,
    ],
    ['Jira on with its own handle', JIRA, 'jira: { handle: "@bot" }', `${F}: jira.labels`, /only a comment "@bot new <what to do>" does/],
    ['a Linear link while Linear is off', SLACK, 'slack: { link_linear_issues: true }', `${F}: slack.link_linear_issues`, /Linear is off/],
    ['a Jira link while Jira is off', SLACK, 'slack: { link_jira_issues: true }', `${F}: slack.link_jira_issues`, /Jira is off/],
  ])('%s: one warning at the key, with what to add', (_what, env, yaml, where, message) => {
    const warnings = warningsOf(env, yaml);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.where).toBe(where);
    expect(warnings[0]?.message).toMatch(message);
    expect(warnings[0]?.hint).toMatch(/e\.g\.|turn .* on/);
  });

  it.each([
    ['nothing on', {}, undefined],
    ['GitHub on with a repository', GITHUB, 'github: { repos: { acme/web: {} } }'],
    ['GitHub on with every repository', GITHUB, 'github: { repos: { "*": {} } }'],
    ['GitHub off without repositories', {}, 'github: { labels: { agent: {} } }'],
    ['Jira on with a label', JIRA, 'jira: { labels: { agent: {} } }'],
    ['Jira off without labels', {}, 'jira: { projects: [ENG] }'],
    ['a Linear link with Linear on', { ...SLACK, ...LINEAR }, 'slack: { link_linear_issues: true }'],
    ['a Jira link with Jira on', { ...SLACK, ...JIRA }, 'slack: { link_jira_issues: true }\njira: { labels: { agent: {} } }'],
    ['a link while Slack is off (no mention to link)', {}, 'slack: { link_linear_issues: true, link_jira_issues: true }'],
  ])('%s: none', (_what, env, yaml) => {
    expect(warningsOf(env, yaml)).toEqual([]);
  });
});
