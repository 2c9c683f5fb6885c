import { describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';
import { problemsOf, tempDir } from '../../test/config/helpers.js';

// `slack.followup_window` / `linear.followup_window`: how long replies gather before they go as one follow-up.
const withFile = (yaml: string) => loadConfig({ env: {}, cwd: tempDir({ 'agent-bridge.yml': yaml }) });
const F = 'agent-bridge.yml';

describe('followup_window', () => {
  it('is 2 s on both surfaces unless set; 0 sends each reply alone', () => {
    expect(withFile('schedules: []').slack.followupWindowMs).toBe(2_000);
    expect(withFile('schedules: []').linear.followupWindowMs).toBe(2_000);
    const config = withFile('slack: { followup_window: 500ms }\nlinear: { followup_window: 0s }');
    expect(config.slack.followupWindowMs).toBe(500);
    expect(config.linear.followupWindowMs).toBe(0);
  });

  it.each([
    ['a number without a unit', 'slack: { followup_window: 2 }', `${F}: slack.followup_window`, 'has no unit'],
    ['more than a minute', 'linear: { followup_window: 2m }', `${F}: linear.followup_window`, 'at most 1m'],
    ['a word', 'slack: { followup_window: soon }', `${F}: slack.followup_window`, 'not a duration'],
  ])('refuses %s, naming the key', (_name, yaml, where, why) => {
    const problems = problemsOf(() => withFile(yaml));
    const found = problems.find((problem) => problem.where.startsWith(where));
    expect(found?.message ?? JSON.stringify(problems)).toContain(why);
  });
});
