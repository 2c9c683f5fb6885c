/** `limits.per_person` and a route's `limits`: read, defaulted, and refused by key path. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';
import { problemsOf, tempDir } from '../../test/config/helpers.js';

const withFile = (yaml: string) => loadConfig({ env: {}, cwd: tempDir({ 'agent-bridge.yml': yaml }) });
const fileProblems = (yaml: string) => problemsOf(() => withFile(yaml));
const F = 'agent-bridge.yml';

describe('limits in the config file', () => {
  it('reads limits.per_person and the limits of the defaults, a channel, a label and a schedule; a key left out is 0 (no limit)', () => {
    const config = withFile(
      [
        'limits:',
        '  per_person: { concurrent: 2, per_day: 10, credits_per_month: 125.5 }',
        'defaults:',
        '  limits: { per_day: 100 }',
        'slack:',
        '  channels:',
        '    C0123ABCD: { config: { name: web }, limits: { concurrent: 3 } }',
        'linear:',
        '  labels:',
        '    agent: { limits: { credits_per_month: 40 } }',
        'schedules:',
        '  - { name: nightly, cron: "0 3 * * *", prompt: Go., limits: { concurrent: 1 } }',
      ].join('\n'),
    );
    expect(config.limits).toEqual({ perPerson: { concurrent: 2, perDay: 10, creditsPerMonth: 125.5 } });
    expect(config.defaults.limits).toEqual({ concurrent: 0, perDay: 100, creditsPerMonth: 0 });
    expect(config.slack.channels['C0123ABCD']?.limits).toEqual({ concurrent: 3, perDay: 0, creditsPerMonth: 0 });
    expect(config.linear.labels['agent']?.limits).toEqual({ concurrent: 0, perDay: 0, creditsPerMonth: 40 });
    expect(config.schedules[0]?.limits).toEqual({ concurrent: 1, perDay: 0, creditsPerMonth: 0 });
  });

  it('has no limits by default, and a route without limits carries none', () => {
    const config = withFile('slack:\n  channels:\n    C0123ABCD: { config: { name: web } }\n');
    expect(config.limits.perPerson).toEqual({ concurrent: 0, perDay: 0, creditsPerMonth: 0 });
    expect(config.slack.channels['C0123ABCD']).not.toHaveProperty('limits');
    expect(config.defaults).not.toHaveProperty('limits');
  });

  it.each([
    ['a negative count', 'limits:\n  per_person: { concurrent: -1 }', 'limits.per_person.concurrent', 'must be at least 0 (found -1)'],
    ['a fraction of a run', 'limits:\n  per_person: { per_day: 2.5 }', 'limits.per_person.per_day', 'must be a whole number, found a number'],
    ['text for credits', 'limits:\n  per_person: { credits_per_month: lots }', 'limits.per_person.credits_per_month', 'must be a number, found text'],
    ['negative credits', 'defaults:\n  limits: { credits_per_month: -5 }', 'defaults.limits.credits_per_month', 'must be at least 0 (found -5)'],
    ['an unknown limit', 'limits:\n  per_person: { per_week: 3 }', 'limits.per_person.per_week', 'unknown key — remove it or fix its spelling'],
    ['an unknown key beside per_person', 'limits:\n  per_route: {}', 'limits.per_route', 'unknown key — remove it or fix its spelling'],
    [
      'a channel route’s bad limit',
      'slack:\n  channels:\n    C0123ABCD: { limits: { concurrent: "two" } }',
      'slack.channels.C0123ABCD.limits.concurrent',
      'must be a number, found text',
    ],
    [
      'a schedule’s bad limit',
      'schedules:\n  - { name: n, cron: "0 3 * * *", prompt: Go., limits: { per_day: -2 } }',
      'schedules[0].limits.per_day',
      'schedule "n": must be at least 0 (found -2)',
    ],
  ])('refuses %s, naming the key path', (_what, yaml, path, message) => {
    const problems = fileProblems(yaml);
    expect(problems).toEqual([expect.objectContaining({ where: `${F}: ${path}`, message })]);
  });
});
