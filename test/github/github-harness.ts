/**
 * The GitHub end-to-end world: the real service (real Octokit, real SQLite file, real HTTP on
 * loopback) with Slack on too (a Slack run's pull request), the fake GitHub REST API, the fake Slack
 * Web API and the manual run-API emulator; a way to POST correctly signed deliveries.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { Logger } from '../../src/core/ports/logger.js';
import { startFakeGithubApi, type FakeGithubApi } from '../fakes/github-api.js';
import { REPO, githubDelivery, type Json } from '../fixtures/github/index.js';
import { postDelivery } from '../helpers/deliveries.js';
import { startSlackBridge, startSlackFakes, type SlackBridge, type SlackFakes } from '../helpers/slack-bridge.js';

export const GITHUB_APP_ID = '4242';
export const GITHUB_SECRET = 'gh-e2e-webhook-secret-0123456789';
export const GITHUB_PEM = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

export const GITHUB_YAML = `tracker:
  interval: 1s
slack:
  followups: mentions
github:
  repos:
    acme/web: { config: { environment_id: env_web, name: web } }
  labels:
    agent: { config: { environment_id: env_label, name: labelled } }
  ci_failures: 1
`;

export interface GithubWorld {
  github: FakeGithubApi;
  fakes: SlackFakes;
  /** The running bridge; a test that restarts it puts the new one here (`world.bridge = await world.bridge.restart()`). */
  bridge: SlackBridge;
  /** POSTs a delivery signed with the App's secret; resolves to the status and JSON answer. */
  deliver(
    event: string,
    payload: Json | string,
    options?: { deliveryId?: string; signature?: string | null },
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  stop(): Promise<void>;
}

export async function startGithubWorld(options: { yaml?: string; logger?: Logger; env?: Record<string, string> } = {}): Promise<GithubWorld> {
  // The people the fixtures speak for have write access; anyone else reads, as on a public repository.
  const github = await startFakeGithubApi({ appId: GITHUB_APP_ID, privateKey: GITHUB_PEM, roles: { [REPO]: { octocat: 'write', reviewer: 'write' } } });
  const fakes = await startSlackFakes();
  const bridge = await startSlackBridge({
    fakes,
    yaml: options.yaml ?? GITHUB_YAML,
    ...(options.logger && { logger: options.logger }),
    env: {
      GITHUB_APP_ID,
      // As an operator pastes it into an env file: one line, `\n` escapes.
      GITHUB_PRIVATE_KEY: GITHUB_PEM.trim().replace(/\n/g, '\\n'),
      GITHUB_WEBHOOK_SECRET: GITHUB_SECRET,
      GITHUB_API_URL: github.url,
      ...options.env,
    },
  });
  const world: GithubWorld = {
    github,
    fakes,
    bridge,
    deliver: async (event, payload, deliveryOptions = {}) => {
      return postDelivery(`${world.bridge.service.url}/github/webhook`, githubDelivery(GITHUB_SECRET, event, payload, deliveryOptions));
    },
    stop: async () => {
      await world.bridge.stop();
      await fakes.emulator.close();
      await fakes.slack.close();
      await github.close();
    },
  };
  return world;
}
