import { describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';
import { problemsOf, tempDir } from '../../test/config/helpers.js';

// Starting without a mention: a channel's `trigger` and a label's `projects`.
const withFile = (yaml: string) => loadConfig({ env: {}, cwd: tempDir({ 'agent-bridge.yml': yaml }) });
const F = 'agent-bridge.yml';

describe('slack.channels.<id>.trigger and linear.labels.<name>.projects', () => {
  it('reads them apart from the route: the route is unchanged, colons leave the emoji name', () => {
    const config = withFile(
      [
        'slack:',
        '  channels:',
        '    C0123ABCD: { config: { name: web }, trigger: { keywords: ["agent:", "Bot,"], emoji: ":robot_face:" } }',
        '    "*": { trigger: { emoji: hammer_and_wrench } }',
        '    C0456EFGH: { config: { name: plain } }',
        'linear:',
        '  labels:',
        '    Agent: { projects: [Checkout revamp, 3f1c0a9e-6f43-4b9b-9d3e-2b7f5a1c9e10] }',
        '    other: {}',
      ].join('\n'),
    );
    expect(config.slack.channels.C0123ABCD).toEqual({ config: { name: 'web' } });
    expect(config.slack.triggers).toEqual({
      C0123ABCD: { keywords: ['agent:', 'Bot,'], emoji: 'robot_face' },
      '*': { keywords: [], emoji: 'hammer_and_wrench' },
    });
    expect(config.linear.labels.agent).toEqual({});
    expect(config.linear.projects).toEqual({ agent: ['Checkout revamp', '3f1c0a9e-6f43-4b9b-9d3e-2b7f5a1c9e10'] });
  });

  it.each([
    ['an unknown trigger key', 'slack: { channels: { C0123ABCD: { trigger: { word: x } } } }', `${F}: slack.channels.C0123ABCD.trigger`],
    ['an empty keyword list', 'slack: { channels: { C0123ABCD: { trigger: { keywords: [] } } } }', `${F}: slack.channels.C0123ABCD.trigger.keywords`],
    ['a blank keyword', 'slack: { channels: { C0123ABCD: { trigger: { keywords: ["  "] } } } }', `${F}: slack.channels.C0123ABCD.trigger.keywords[0]`],
    ['an emoji that is not a name', 'slack: { channels: { C0123ABCD: { trigger: { emoji: "🤖" } } } }', `${F}: slack.channels.C0123ABCD.trigger.emoji`],
    ['a reaction the bot adds itself', 'slack: { channels: { C0123ABCD: { trigger: { emoji: eyes } } } }', `${F}: slack.channels.C0123ABCD.trigger.emoji`],
    ['a trigger on the defaults (Slack channels only)', 'defaults: { trigger: { emoji: robot_face } }', `${F}: defaults`],
    ['projects on a Slack channel', 'slack: { channels: { C0123ABCD: { projects: [x] } } }', `${F}: slack.channels.C0123ABCD`],
    ['an empty project list', 'linear: { labels: { agent: { projects: [] } } }', `${F}: linear.labels.agent.projects`],
    ['a project routed by two labels', 'linear: { labels: { agent: { projects: [Web] }, bot: { projects: [web] } } }', `${F}: linear.labels.bot.projects[0]`],
  ])('refuses %s by its key path', (_name, yaml, where) => {
    const problems = problemsOf(() => withFile(yaml));
    expect(problems.map((problem) => problem.where).some((found) => found.startsWith(where))).toBe(true);
  });
});
