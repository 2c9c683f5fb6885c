import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../test/core/capturing-logger.js';
import { startFakeJiraApi, type FakeJiraApi } from '../../test/fakes/jira-api.js';
import { TestClock } from '../core/ports/clock.js';
import { JiraAccess, projectOfPlace } from './access.js';
import { restJiraApi, type JiraApi } from './jira-api.js';

/* Who may drive the agent from Jira, asked of the fake Jira's permission search (docs/jira.md). */

const EMAIL = 'bot@acme.example';
const TOKEN = 'jira-access-token-0123456789';
let fake: FakeJiraApi;
let api: JiraApi;
let clock: TestClock;
let logger: CapturingLogger;
let access: JiraAccess;

beforeAll(async () => {
  // A strict scheme: browsing and commenting for anyone, editing only where granted.
  fake = await startFakeJiraApi({ email: EMAIL, apiToken: TOKEN, anyoneMay: ['BROWSE_PROJECTS', 'ADD_COMMENTS'] });
  for (const project of ['ENG', 'OPS'])
    fake.addIssue({ id: `1${project}`, key: `${project}-1`, summary: 's', labels: [], project: { id: project, key: project, name: project } });
  fake.grant('ENG', 'acc-editor', 'EDIT_ISSUES');
  api = restJiraApi({ baseUrl: fake.url, email: EMAIL, apiToken: TOKEN });
});
afterAll(async () => {
  await api.close();
  await fake.close();
});
beforeEach(() => {
  clock = new TestClock();
  logger = new CapturingLogger();
  access = new JiraAccess({ api, allowedUsers: ['acc-listed'], now: () => clock.now(), logger });
});

const asking = (accountId: string | undefined, place = 'jira:ENG-1') => ({
  anchor: place,
  payload: { ...(accountId !== undefined && { requester: { platform: 'jira', id: accountId } }) },
});
const searches = () => fake.callsTo('GET', '/rest/api/3/user/permission/search');

describe('JiraAccess', () => {
  it('lets through who may edit the project’s issues, asked once per project and account for five minutes', async () => {
    const before = searches().length;
    expect(await access.refusal(asking('acc-editor'))).toBeUndefined();
    expect(await access.refusal(asking('acc-editor'))).toBeUndefined();
    expect(
      searches()
        .slice(before)
        .map((call) => Object.fromEntries(call.query)),
    ).toEqual([{ permissions: 'EDIT_ISSUES', projectKey: 'ENG', accountId: 'acc-editor', maxResults: '50' }]);
    // An editor of ENG is nobody in OPS.
    expect(await access.refusal(asking('acc-editor', 'jira:OPS-1'))).toMatch(/may not edit issues of OPS/);
    await clock.advance(5 * 60_000);
    await access.refusal(asking('acc-editor'));
    expect(searches().length - before).toBe(3);
  });

  it('refuses who may only comment; jira.allowed_users pass without a question; nobody at all is refused', async () => {
    expect(await access.refusal(asking('acc-commenter'))).toBe('the account may not edit issues of ENG and is not in jira.allowed_users');
    const before = searches().length;
    expect(await access.refusal(asking('acc-listed'))).toBeUndefined();
    expect(await access.refusal(asking(undefined))).toBe('no Jira account asked');
    expect(searches().length).toBe(before);
  });

  it('a project Jira does not know is nobody’s; a Jira that says no to our account refuses and tells the operator what to grant', async () => {
    expect(await access.refusal(asking('acc-editor', 'jira:GONE-4'))).toMatch(/may not edit issues of GONE/);
    const strict = await startFakeJiraApi({ email: EMAIL, apiToken: TOKEN, administrator: false });
    const strictApi = restJiraApi({ baseUrl: strict.url, email: EMAIL, apiToken: TOKEN });
    try {
      strict.addIssue({ id: '1', key: 'ENG-1', summary: 's', labels: [], project: { id: '1', key: 'ENG', name: 'ENG' } });
      const checked = new JiraAccess({ api: strictApi, allowedUsers: [], now: () => clock.now(), logger });
      expect(await checked.refusal(asking('acc-anyone'))).toMatch(/may not edit/);
      expect(logger.at('warn')[0]).toMatchObject({ fields: { project: 'ENG' }, msg: expect.stringContaining('needs Administer Projects') });
      // Once granted, the next question (after the five minutes) lets the person through.
      strict.grant('ENG', strict.myself.accountId, 'ADMINISTER_PROJECTS');
      await clock.advance(5 * 60_000);
      expect(await checked.refusal(asking('acc-anyone'))).toBeUndefined();
    } finally {
      await strictApi.close();
      await strict.close();
    }
  });

  it('throws when Jira cannot say (the worker retries), and asks again on the next try', async () => {
    fake.failNext('GET', '/rest/api/3/user/permission/search', { status: 429, retryAfter: 7 });
    await expect(access.refusal(asking('acc-editor'))).rejects.toMatchObject({ code: 'rate_limited', retryAfterMs: 7_000 });
    expect(await access.refusal(asking('acc-editor'))).toBeUndefined();
  });

  it('reads the project from the place', () => {
    expect(projectOfPlace('jira:ENG-12')).toBe('ENG');
    expect(projectOfPlace('jira:my_proj-3')).toBe('MY_PROJ');
    expect(projectOfPlace('slack:C1:1.1')).toBeUndefined();
  });
});
