import { describe, expect, it } from 'vitest';
import { routeParts } from '../../config-kit/route-schema.js';
import { slackConfig } from './slice.js';

/*
 * A tracker that offers an issue linker gets its `link_<name>_issues` key in `slack:` from the route
 * parts alone: a made-up tracker here, which nothing in Slack's folder names.
 */
const GITLAB = { surface: 'gitlab', whenOff: { message: 'is true, but GitLab is off', hint: 'turn GitLab on, or set it to false' } };
const PEOPLE = { parse: () => undefined, expected: () => 'nobody' };
const PARTS = routeParts([], PEOPLE, [GITLAB]);
const ENV = { botToken: 'xoxb-1', signingSecret: 's', appToken: undefined, apiUrl: 'https://slack.com/api/', signIn: undefined };

describe('slack.link_<tracker>_issues: a key for each tracker that offers an issue linker', () => {
  const schema = slackConfig.fileSection(PARTS);

  it('is false unless set; true, the tracker is one whose issues a mention binds its run to', () => {
    expect(slackConfig.resolve(ENV, schema.parse({}), PARTS).linksIssuesOf).toEqual([]);
    const linked = slackConfig.resolve(ENV, schema.parse({ link_gitlab_issues: true }), PARTS);
    expect(linked.linksIssuesOf).toEqual([GITLAB]);
    expect(slackConfig.describe(linked, () => undefined)['linksIssuesOf']).toEqual(['gitlab']);
  });

  it('is not a key for a tracker that offers none', () => {
    expect(Object.keys(schema.parse({}) as object)).toContain('link_gitlab_issues');
    expect(schema.safeParse({ link_linear_issues: true }).success).toBe(false);
  });

  it('set while its tracker is off, is warned of in the tracker’s words', () => {
    const linked = slackConfig.resolve(ENV, schema.parse({ link_gitlab_issues: true }), PARTS);
    expect(slackConfig.warnings(linked, 'agent-bridge.yml', () => false)).toEqual([
      { where: 'agent-bridge.yml: slack.link_gitlab_issues', message: 'is true, but GitLab is off', hint: 'turn GitLab on, or set it to false' },
    ]);
    expect(slackConfig.warnings(linked, 'agent-bridge.yml', (surface) => surface === 'gitlab')).toEqual([]);
  });
});
