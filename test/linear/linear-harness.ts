/**
 * The Linear end-to-end setup: the real service (real SDK, real SQLite file, real HTTP on loopback)
 * with the fake Linear GraphQL API and the run-API emulator; helpers to seed issues and to POST
 * correctly signed deliveries.
 */
import { randomUUID } from 'node:crypto';
import type { RunningService } from '../../src/main.js';
import { startFakeLinearApi, type FakeLinearApi, type FakeLinearIssue } from '../fakes/linear-api.js';
import { LINEAR_IDS, commentCreated, labelAdded, labelRemoved, linearDelivery, type Json, type LinearEnvelopeFixture } from '../fixtures/linear/index.js';
import { postDelivery } from '../helpers/deliveries.js';
import { startBridge } from '../helpers/start-bridge.js';
import type { Logger } from '../../src/core/ports/logger.js';

export const LINEAR_SECRET = 'linear-webhook-secret-0123456789';
export const LINEAR_KEY = 'lin_api_e2e_0123456789abcdef';

export const LINEAR_YAML = `tracker:
  interval: 1s
linear:
  labels:
    agent: { config: { environment_id: env_web, name: web } }
    agent-web: {}
  teams: [ENG, WEB]
`;

let issueNumber = 500;

/** A fresh issue known to the fake, and the fixture data that describes it in webhooks. */
export function newIssue(fake: FakeLinearApi, title = 'Fix the flaky login test'): { issue: FakeLinearIssue; data: Json } {
  issueNumber += 1;
  const identifier = `ENG-${issueNumber}`;
  const issue: FakeLinearIssue = {
    id: randomUUID(),
    identifier,
    title,
    url: `https://linear.app/acme/issue/${identifier}`,
    team: { id: LINEAR_IDS.team.id, key: 'ENG' },
  };
  fake.addIssue(issue);
  return { issue, data: { id: issue.id, identifier, title, url: issue.url } };
}

export function commentOn(issue: FakeLinearIssue, body: string, data: Json = {}): LinearEnvelopeFixture {
  return commentCreated(body, {
    issueId: issue.id,
    issue: { id: issue.id, identifier: issue.identifier, title: issue.title, url: issue.url, team: LINEAR_IDS.team },
    ...data,
  });
}

export { labelAdded, labelRemoved };

export interface LinearBridge {
  service: RunningService;
  cwd: string;
  webhook: string;
  /** POSTs a signed delivery; returns the status and the JSON answer. */
  deliver(
    payload: LinearEnvelopeFixture | string,
    options?: { deliveryId?: string; signature?: string },
  ): Promise<{ status: number; body: Record<string, unknown> }>;
}

export async function startLinearBridge(options: {
  fake: FakeLinearApi;
  emulator: { baseUrl: string; apiKey: string };
  cwd?: string;
  yaml?: string;
  logger?: Logger;
}): Promise<LinearBridge> {
  const { service, cwd } = await startBridge({
    ...(options.cwd && { cwd: options.cwd }),
    ...(options.logger && { logger: options.logger }),
    agentApi: options.emulator,
    yaml: options.yaml ?? LINEAR_YAML,
    env: { LINEAR_API_KEY: LINEAR_KEY, LINEAR_WEBHOOK_SECRET: LINEAR_SECRET, LINEAR_API_URL: options.fake.url },
  });
  const webhook = `${service.url}/linear/webhook`;
  return {
    service,
    cwd,
    webhook,
    deliver: async (payload, deliveryOptions = {}) => {
      return postDelivery(webhook, linearDelivery(LINEAR_SECRET, payload, deliveryOptions));
    },
  };
}

export { startFakeLinearApi };
export { until } from '../helpers/until.js';
export { quiet } from '../helpers/deliveries.js';
