import { describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';
import { problemsOf, tempDir } from '../../test/config/helpers.js';

// A route's `overrides` and `announce`: read into the route, refused by key path when wrong.
const withFile = (yaml: string) => loadConfig({ env: {}, cwd: tempDir({ 'agent-bridge.yml': yaml }) });
const F = 'agent-bridge.yml';

describe('route overrides and announce', () => {
  it('reads them on a channel, a label and the defaults', () => {
    const config = withFile(
      [
        'defaults: { announce: end }',
        'slack:',
        '  channels:',
        '    C0123ABCD: { overrides: { environment_id: [env_web, env_api], model_id: "*" }, announce: all }',
        'linear:',
        '  labels:',
        '    agent: { overrides: { skill_spec: [owner/repo:fix-bug] } }',
      ].join('\n'),
    );
    expect(config.defaults).toEqual({ config: {}, announce: 'end' });
    expect(config.slack.channels.C0123ABCD).toEqual({ overrides: { environment_id: ['env_web', 'env_api'], model_id: '*' }, announce: 'all' });
    expect(config.linear.labels.agent).toEqual({ overrides: { skill_spec: ['owner/repo:fix-bug'] } });
  });

  it.each([
    ['an unknown override key', 'slack: { channels: { C0123ABCD: { overrides: { env: "*" } } } }', `${F}: slack.channels.C0123ABCD.overrides`],
    [
      'an override that is neither "*" nor a list',
      'slack: { channels: { C0123ABCD: { overrides: { model_id: any } } } }',
      `${F}: slack.channels.C0123ABCD.overrides.model_id`,
    ],
    ['an empty list', 'linear: { labels: { agent: { overrides: { model_id: [] } } } }', `${F}: linear.labels.agent.overrides.model_id`],
    ['an unknown announce value', 'defaults: { announce: sometimes }', `${F}: defaults.announce`],
  ])('refuses %s by its key path', (_name, yaml, where) => {
    const problems = problemsOf(() => withFile(yaml));
    expect(problems.map((problem) => problem.where).some((found) => found.startsWith(where))).toBe(true);
  });
});

describe('slack.context and linear.context', () => {
  it('bound the earlier messages a start or follow-up carries; each bound has its default', () => {
    const config = withFile('slack: { context: { messages: 5 } }\nlinear: { context: { characters: 2000 } }');
    expect(config.slack.context).toEqual({ messages: 5, characters: 8_000 });
    expect(config.linear.context).toEqual({ messages: 20, characters: 2_000 });
  });

  it.each([
    ['a negative count', 'slack: { context: { messages: -1 } }', `${F}: slack.context.messages`],
    ['an unknown key', 'linear: { context: { lines: 3 } }', `${F}: linear.context`],
  ])('refuses %s', (_name, yaml, where) => {
    const problems = problemsOf(() => withFile(yaml));
    expect(problems.map((problem) => problem.where).some((found) => found.startsWith(where))).toBe(true);
  });
});
