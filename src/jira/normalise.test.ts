import { describe, expect, it } from 'vitest';
import { addressing, commentTrigger, labelTrigger, notAPerson, type JiraTriggerConfig } from './normalise.js';
import { parseJiraWebhook, type JiraWebhook } from './parse-webhook.js';

const ME = 'acc-bot';
const config: JiraTriggerConfig = {
  handle: '@agent',
  followups: 'mentions',
  cancelOnLabelRemoved: true,
  labels: { agent: {}, 'agent-docs': { title: 'Docs' } },
  companions: { 'agent-docs': ['slack:C0DOCS'] },
  projects: ['ENG'],
  siteUrl: 'https://acme.atlassian.net',
};
const issue = (key = 'ENG-1', labels = ['Agent']) => ({
  id: '10001',
  key,
  fields: { summary: 'Fix it', description: '[env=web] Steps', labels, project: { key: key.split('-')[0] } },
});
const user = { accountId: 'acc-grace', displayName: 'Grace' };

function webhook(body: Record<string, unknown>): JiraWebhook {
  const parsed = parseJiraWebhook(JSON.stringify(body));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.webhook;
}
const labels = (from: string, to: string, key = 'ENG-1', id = '77', by: Record<string, unknown> | null = user) =>
  webhook({
    webhookEvent: 'jira:issue_updated',
    user: by,
    issue: issue(key, to.split(' ').filter(Boolean)),
    changelog: { id, items: [{ field: 'labels', fromString: from, toString: to }] },
  });
const comment = (body: string, author: Record<string, unknown> | null = user) =>
  webhook({ webhookEvent: 'comment_created', issue: issue(), comment: { id: '900', body, author } });
const customer = { accountId: 'qm:1a2b3c:customer-1', displayName: 'A customer', accountType: 'customer' };
const app = { accountId: 'acc-automation', displayName: 'Automation for Jira', accountType: 'app' };

describe('labelTrigger', () => {
  it('a gained trigger label (any case) starts a run keyed on the change, with the route, the issue and who', () => {
    const trigger = labelTrigger(labels('bug', 'bug Agent'), config);
    expect(trigger).toMatchObject({
      kind: 'start',
      key: 'jira:label:10001:agent:77',
      source: 'jira',
      anchor: 'jira:ENG-1',
      payload: {
        title: 'ENG-1: Fix it',
        origin: { source: 'jira', label: 'agent' },
        destinations: ['jira:ENG-1'],
        requester: { platform: 'jira', id: 'acc-grace', name: 'Grace' },
        ticket: { ref: 'ENG-1', url: 'https://acme.atlassian.net/browse/ENG-1' },
        unlessActive: true,
        // Nothing shows until the worker has asked Jira whether Grace may edit the issue.
        checkRequester: true,
      },
    });
    // Options opening the description lead the prompt, where the worker reads them.
    expect(trigger?.kind === 'start' && trigger.payload.prompt).toMatch(/^\[env=web\]\nWork on the Jira issue ENG-1: Fix it/);
  });

  it('a route with slack_channel gives the run a Slack place too', () => {
    expect(labelTrigger(labels('', 'agent-docs'), config)).toMatchObject({ payload: { destinations: ['jira:ENG-1', 'slack:C0DOCS'] } });
  });

  it.each([
    ['a label that is no trigger', labels('', 'bug')],
    ['a project not served', labels('', 'agent', 'OPS-1')],
    [
      'a change of another field',
      webhook({
        webhookEvent: 'jira:issue_updated',
        user,
        issue: issue(),
        changelog: { id: '1', items: [{ field: 'status', fromString: 'To Do', toString: 'Done' }] },
      }),
    ],
  ])('%s starts nothing', (_what, received) => {
    expect(labelTrigger(received, config)).toBeUndefined();
  });

  it('a created issue with a trigger label starts a run', () => {
    expect(labelTrigger(webhook({ webhookEvent: 'jira:issue_created', user, issue: issue() }), config)).toMatchObject({
      kind: 'start',
      key: 'jira:label:10001:agent:created',
    });
  });

  it.each([
    ['no author', null],
    ['a service-desk customer', customer],
    ['an app', app],
    ['an account of an unknown type', { ...user, accountType: 'unknown' }],
  ])('a label gained or lost by %s starts and stops nothing', (_who, by) => {
    expect(labelTrigger(labels('bug', 'bug agent', 'ENG-1', '78', by), config)).toBeUndefined();
    expect(labelTrigger(labels('agent bug', 'bug', 'ENG-1', '79', by), config)).toBeUndefined();
    expect(labelTrigger(labels('bug', 'bug agent', 'ENG-1', '80', { ...user, accountType: 'atlassian' }), config)).toMatchObject({ kind: 'start' });
  });

  it('a lost trigger label cancels, unless cancel_on_label_removed is off', () => {
    expect(labelTrigger(labels('agent bug', 'bug'), config)).toMatchObject({ kind: 'cancel', key: 'jira:unlabel:10001:agent:77', anchor: 'jira:ENG-1' });
    expect(labelTrigger(labels('agent bug', 'bug'), { ...config, cancelOnLabelRemoved: false })).toBeUndefined();
  });
});

describe('commentTrigger', () => {
  it.each([
    ['@agent also bump the version', { kind: 'followup', payload: { message: 'also bump the version' } }],
    ['@Agent, stop', { kind: 'cancel' }],
    ['@agent new write docs', { kind: 'start', payload: { followupIfLinked: false, origin: { label: '' } } }],
    [`[~accountid:${ME}] please also check Safari`, { kind: 'followup', payload: { message: 'please also check Safari' } }],
  ])('%s', (body, expected) => {
    expect(commentTrigger(comment(body), config, ME)).toMatchObject({ key: 'jira:comment:900', anchor: 'jira:ENG-1', ...expected });
  });

  it('a comment without the handle counts only with followups: all', () => {
    expect(commentTrigger(comment('looks good'), config, ME)).toBeUndefined();
    expect(commentTrigger(comment('looks good'), { ...config, followups: 'all' }, ME)).toMatchObject({ kind: 'followup', payload: { message: 'looks good' } });
  });

  it('whatever a person’s comment asks, the worker asks Jira first whether they may edit the issue', () => {
    for (const body of ['@agent new write docs', '@agent stop', '@agent more'])
      expect(commentTrigger(comment(body), config, ME)?.payload).toMatchObject({ checkRequester: true });
    expect(labelTrigger(labels('agent bug', 'bug'), config)?.payload).toMatchObject({ checkRequester: true });
  });

  it.each([
    ['no author', null],
    ['a service-desk customer', customer],
    ['an app', app],
  ])('a comment by %s starts, steers and stops nothing, whatever it says', (who, author) => {
    for (const body of ['@agent new do it', '@agent stop', '@agent more', 'more'])
      expect(commentTrigger(comment(body, author), { ...config, followups: 'all' }, ME)).toBeUndefined();
    expect(notAPerson((author ?? undefined) as Parameters<typeof notAPerson>[0])).toBe(who);
  });

  it('our own comment never counts, whatever it says', () => {
    expect(commentTrigger(comment('@agent stop', { accountId: ME, displayName: 'agent-bridge' }), { ...config, followups: 'all' }, ME)).toBeUndefined();
  });

  it('addressing takes the first word only', () => {
    expect(addressing('please @agent stop', '@agent')).toEqual({ addressed: false, rest: 'please @agent stop' });
  });
});
