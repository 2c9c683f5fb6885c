/**
 * The Jira end-to-end setup: the real service (real SQLite file, real HTTP on loopback)
 * with the fake Jira REST v3 and the run-API emulator; helpers to seed issues and to POST correctly
 * signed deliveries.
 */
import type { RunningService } from '../../src/main.js';
import type { Logger } from '../../src/core/ports/logger.js';
import { adfParagraph, startFakeJiraApi, type FakeJiraApi } from '../fakes/jira-api.js';
import { jiraDelivery, type JiraIssueFixture, type Json } from '../fixtures/jira/webhooks.js';
import { postDelivery } from '../helpers/deliveries.js';
import { startBridge } from '../helpers/start-bridge.js';
import { until } from '../helpers/until.js';

export const JIRA_SECRET = 'jira-webhook-secret-0123456789';
export const JIRA_EMAIL = 'bot@acme.example';
export const JIRA_TOKEN = 'ATATT3x-jira-e2e-token-0123456789';

export const JIRA_YAML = `tracker:
  interval: 1s
jira:
  labels:
    agent: { config: { environment_id: env_web, name: web } }
    agent-docs: {}
  projects: [ENG]
`;

let issueNumber = 100;

/** A fresh issue known to the fake (project ENG unless said), and its webhook fixture. */
export function newIssue(fake: FakeJiraApi, summary = 'Fix the flaky login test', project = 'ENG', labels: string[] = []): JiraIssueFixture {
  issueNumber += 1;
  const issue: JiraIssueFixture = { id: String(20_000 + issueNumber), key: `${project}-${issueNumber}`, summary, labels };
  fake.addIssue({ id: issue.id, key: issue.key, summary, labels, project: { id: '10000', key: project, name: `${project} project` } });
  return issue;
}

/** Sets the issue's description in the fake (REST v3 reads it as ADF). */
export function describeIssue(fake: FakeJiraApi, key: string, description: string): void {
  const issue = fake.issue(key);
  if (issue) fake.addIssue({ ...issue, description: adfParagraph(description) });
}

export interface JiraBridge {
  service: RunningService;
  cwd: string;
  webhook: string;
  deliver(payload: Json | string, options?: { deliveryId?: string; signature?: string }): Promise<{ status: number; body: Record<string, unknown> }>;
}

export async function startJiraBridge(options: {
  fake: FakeJiraApi;
  emulator: { baseUrl: string; apiKey: string };
  cwd?: string;
  yaml?: string;
  env?: Record<string, string>;
  logger?: Logger;
}): Promise<JiraBridge> {
  const { service, cwd } = await startBridge({
    ...(options.cwd && { cwd: options.cwd }),
    ...(options.logger && { logger: options.logger }),
    agentApi: options.emulator,
    yaml: options.yaml ?? JIRA_YAML,
    env: { JIRA_BASE_URL: options.fake.url, JIRA_EMAIL, JIRA_API_TOKEN: JIRA_TOKEN, JIRA_WEBHOOK_SECRET: JIRA_SECRET, ...options.env },
  });
  const webhook = `${service.url}/jira/webhook`;
  return {
    service,
    cwd,
    webhook,
    deliver: async (payload, deliveryOptions = {}) => {
      return postDelivery(webhook, jiraDelivery(JIRA_SECRET, payload, deliveryOptions));
    },
  };
}

export { startFakeJiraApi, until };
export { quiet } from '../helpers/deliveries.js';
