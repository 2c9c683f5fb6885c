/**
 * GitHub as the service registers it (`surface-kit/surface-module.ts`), listed in `src/surface-list.ts`:
 * a GitHub App whose issues start runs and whose pull requests are runs' places. Octokit is loaded
 * only when GitHub is on.
 */
import { notConfiguredEndpoint } from '../http/health-endpoints.js';
import { companionsOn } from '../config-kit/route-values.js';
import type { SurfaceModuleOf } from '../surface-kit/surface-module.js';
import { githubConfig } from './config/slice.js';
import { GITHUB_TOKEN_SHAPES } from './credential-shapes.js';
import { githubSurface } from './surface.js';

export const githubModule: SurfaceModuleOf<'github', typeof githubConfig> = {
  name: 'github',
  title: 'GitHub',
  kind: 'tracker',
  config: githubConfig,
  isOn: (config) => config.github.enabled,
  surface: (config) => githubSurface(config.github),
  async start(config, { intake, store, logger, clock, isOn, people }) {
    const github = config.github;
    if (!github.enabled || !github.appId || !github.privateKey || !github.webhookSecret) return undefined;
    const { startGithub } = await import('./index.js');
    const started = await startGithub(
      {
        appId: github.appId,
        privateKey: github.privateKey,
        webhookSecret: github.webhookSecret,
        apiUrl: github.apiUrl,
        handle: github.handle,
        repos: github.repos,
        labels: github.labels,
        // A route's companion chat place needs that chat on (the config refuses one while it is off).
        companions: { repos: companionsOn(github.companions.repos, isOn), labels: companionsOn(github.companions.labels, isOn) },
        people,
        allowedUsers: github.allowedUsers,
        pullRequests: github.pullRequests,
        ciFailures: github.ciFailures,
        dedupeRetentionMs: config.intake.dedupeRetentionMs,
      },
      intake,
      store,
      logger.child({ component: 'github' }),
      () => clock.now(),
    );
    return { endpoints: [started.route], notifiers: [started.notifier], enricher: started.enricher, requesterCheck: started.requesterCheck };
  },
  offEndpoints: () => [
    notConfiguredEndpoint('/github/webhook', 'GitHub', 'set GITHUB_APP_ID, GITHUB_PRIVATE_KEY_PATH and GITHUB_WEBHOOK_SECRET (docs/github.md)'),
  ],
  healthNote: (github) =>
    github.enabled ? 'webhook at /github/webhook' : 'off: GITHUB_APP_ID, GITHUB_PRIVATE_KEY_PATH (or GITHUB_PRIVATE_KEY) and GITHUB_WEBHOOK_SECRET are not set',
  placeLabel: (place) => {
    const issue = /^github:([^/\s]+\/[^#\s]+)#(\d+)$/.exec(place);
    return issue ? `GitHub issue or pull request ${issue[1]}#${issue[2]}` : undefined;
  },
  // An issue or a pull request; linked when the trigger knew its URL (the host may be GitHub Enterprise Server).
  placeLink: (place, knownUrl) => {
    const issue = /^github:([^/\s]+\/[^#\s]+)#(\d+)$/.exec(place);
    return issue ? { url: knownUrl, text: `GitHub ${issue[1]}#${issue[2]}` } : undefined;
  },
  credentialShapes: GITHUB_TOKEN_SHAPES,
  routeTables: (config) => [
    { where: 'github.repos', routes: config.github.repos },
    { where: 'github.labels', routes: config.github.labels },
  ],
};
