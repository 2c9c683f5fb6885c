/**
 * The GitLab end-to-end world: the real service (its fetch client, a real SQLite file, real HTTP on
 * loopback) against the fake GitLab as a self-managed instance (`GITLAB_URL` = the fake's origin), the
 * fake Slack Web API and the manual run-API emulator; deliveries posted as GitLab posts them, with the
 * hook's secret token or its signing token.
 */
import type { Logger } from '../../src/core/ports/logger.js';
import { DEFAULT_BOT, deliver, newSigningToken, startFakeGitlab, type DeliverOptions, type FakeGitlab } from '../fakes/gitlab-api.js';
import { GITLAB_IDS, type GitlabEventFixture } from '../fixtures/gitlab/index.js';
import type { FakeSlackUser } from '../fakes/slack-state.js';
import { startSlackBridge, startSlackFakes, type SlackBridge, type SlackFakes } from '../helpers/slack-bridge.js';

export const GITLAB_TOKEN = 'glpat-e2e-gitlab-token-0123456789';
export const GITLAB_SECRET_TOKEN = 'gitlab-e2e-hook-secret-0123456789';
export type Signing = NonNullable<DeliverOptions['signing']>;

export const GITLAB_YAML = `tracker:
  interval: 1s
gitlab:
  projects:
    acme/web: { config: { environment_id: env_web, name: web } }
  labels:
    agent: { config: { environment_id: env_label, name: labelled } }
`;

export interface GitlabWorld {
  gitlab: FakeGitlab;
  fakes: SlackFakes;
  bridge: SlackBridge;
  /** The webhook's secret: its secret token, or its signing token (`whsec_…`). */
  secret: string;
  signing: Signing;
  /** POSTs a hook as GitLab does, with the right secret unless `options` says otherwise. */
  deliver(
    event: GitlabEventFixture | { hook: string; body: string },
    options?: Partial<DeliverOptions>,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  stop(): Promise<void>;
}

export interface GitlabWorldOptions {
  yaml?: string;
  logger?: Logger;
  /** More environment (AGENT_BRIDGE_SECRET, …). */
  env?: Record<string, string>;
  /** People the fake Slack knows, by user id (with their emails, to be linked by). */
  slackUsers?: Record<string, FakeSlackUser>;
}

export async function startGitlabWorld(signing: Signing, options: GitlabWorldOptions = {}): Promise<GitlabWorld> {
  const { people, project } = GITLAB_IDS;
  const gitlab = await startFakeGitlab({ token: GITLAB_TOKEN, user: DEFAULT_BOT, projects: [{ id: project.id, path_with_namespace: project.path }] });
  gitlab.setMember(project.path, people.alice, 30);
  gitlab.setMember(project.path, people.bob, 40);
  gitlab.setMember(project.path, people.rita, 20);
  const secret = signing === 'token' ? GITLAB_SECRET_TOKEN : newSigningToken();
  const fakes = await startSlackFakes({ ...(options.slackUsers && { users: options.slackUsers }) });
  const bridge = await startSlackBridge({
    fakes,
    yaml: options.yaml ?? GITLAB_YAML,
    ...(options.logger && { logger: options.logger }),
    env: { GITLAB_TOKEN, GITLAB_WEBHOOK_SECRET: secret, GITLAB_URL: gitlab.url, ...options.env },
  });
  const world: GitlabWorld = {
    gitlab,
    fakes,
    bridge,
    secret,
    signing,
    deliver: async (event, deliverOptions = {}) => {
      const sent = await deliver(`${world.bridge.service.url}/gitlab/webhook`, event, { secret, signing, instance: gitlab.url, ...deliverOptions });
      const text = await sent.response.text();
      return { status: sent.response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
    },
    stop: async () => {
      await world.bridge.stop();
      await fakes.emulator.close();
      await fakes.slack.close();
      await gitlab.close();
    },
  };
  return world;
}
