import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeJiraApi, type FakeJiraApi } from '../../test/fakes/jira-api.js';
import { restJiraApi, type JiraApi } from './jira-api.js';
import { JiraIssueLinker, namedJiraIssue } from './issue-linker.js';

const SITE = 'https://acme.atlassian.net';
let fake: FakeJiraApi;
let api: JiraApi;

beforeAll(async () => {
  fake = await startFakeJiraApi({ email: 'bot@acme.example', apiToken: 'token' });
  fake.addIssue({ id: '1', key: 'ENG-7', summary: 'Checkout is slow', labels: [], project: { id: '1', key: 'ENG', name: 'Engineering' } });
  api = restJiraApi({ baseUrl: fake.url, email: 'bot@acme.example', apiToken: 'token' });
});
afterAll(async () => {
  await api.close();
  await fake.close();
});

describe('namedJiraIssue', () => {
  it.each([
    ['please look at ENG-7 today', 'ENG-7'],
    [`see ${SITE}/browse/eng-7 and OPS-1`, 'ENG-7'],
    ['UTF-8 everywhere', 'UTF-8'],
    ['the path src/ENG-7/x and ENG-7x', undefined],
    ['nothing here', undefined],
  ])('%s → %s', (text, key) => {
    expect(namedJiraIssue(text, SITE)).toBe(key);
  });
});

describe('JiraIssueLinker', () => {
  const linker = (projects: string[]) => new JiraIssueLinker({ api, accountId: fake.myself.accountId, siteUrl: fake.url, projects });

  it('binds an issue of a served project, with its context quoted', async () => {
    const found = await linker(['ENG']).lookup('look at ENG-7');
    expect(found).toMatchObject({ kind: 'linked', issue: { anchor: 'jira:ENG-7', ref: 'ENG-7', title: 'Checkout is slow', url: `${fake.url}/browse/ENG-7` } });
    expect(found?.kind === 'linked' && found.issue.context).toContain('> ENG-7: Checkout is slow');
  });

  it('a key of a project not served is not looked up; an unknown issue of a served one is refused in words', async () => {
    const before = fake.calls.length;
    expect(await linker(['ENG']).lookup('is OPS-3 related?')).toBeUndefined();
    expect(fake.calls.length).toBe(before);
    expect(await linker(['ENG']).lookup('ENG-404 please')).toEqual({
      kind: 'refused',
      reason: 'I could not find the Jira issue ENG-404, so the run is not linked to it.',
    });
    // Every project served: a key-shaped word that is no issue (UTF-8) was most likely not meant as one.
    expect(await linker([]).lookup('UTF-8 please')).toBeUndefined();
  });
});
