/**
 * GitLab as the service registers it (`surface-kit/surface-module.ts`), listed in `src/surface-list.ts`:
 * a GitLab.com or self-managed instance whose issues start runs, and whose users are linked to people by
 * their confirmed email. Its client is a small typed `fetch`
 * of its own (`gitlab-api.ts`), loaded only when GitLab is on.
 */
import { companionsOn } from '../config-kit/route-values.js';
import { notConfiguredEndpoint } from '../http/health-endpoints.js';
import type { SurfaceModuleOf } from '../surface-kit/surface-module.js';
import { gitlabConfig } from './config/slice.js';
import { parseGitlabPlace } from './places.js';
import { gitlabSurface } from './surface.js';

export const gitlabModule: SurfaceModuleOf<'gitlab', typeof gitlabConfig> = {
  name: 'gitlab',
  title: 'GitLab',
  kind: 'tracker',
  config: gitlabConfig,
  isOn: (config) => config.gitlab.enabled,
  surface: (config) => gitlabSurface(config.gitlab),
  async start(config, { intake, store, logger, clock, isOn, people }) {
    const gitlab = config.gitlab;
    if (!gitlab.enabled || !gitlab.token || !gitlab.webhookSecret) return undefined;
    const { startGitlab } = await import('./index.js');
    const started = await startGitlab(
      {
        token: gitlab.token,
        webhookSecret: gitlab.webhookSecret,
        url: gitlab.url,
        handle: gitlab.handle,
        projects: gitlab.projects,
        labels: gitlab.labels,
        // A route's companion chat place needs that chat on (the config refuses one while it is off).
        companions: { projects: companionsOn(gitlab.companions.projects, isOn), labels: companionsOn(gitlab.companions.labels, isOn) },
        allowedUsers: gitlab.allowedUsers,
        mergeRequests: gitlab.mergeRequests,
        pipelineFailures: gitlab.pipelineFailures,
        dedupeRetentionMs: config.intake.dedupeRetentionMs,
        people,
      },
      intake,
      store,
      logger.child({ component: 'gitlab' }),
      () => clock.now(),
    );
    return {
      endpoints: [started.route],
      notifiers: [started.notifier],
      enricher: started.enricher,
      requesterCheck: started.requesterCheck,
      emailOf: (username) => started.api.userEmail(username),
    };
  },
  offEndpoints: () => [notConfiguredEndpoint('/gitlab/webhook', 'GitLab', 'set GITLAB_TOKEN and GITLAB_WEBHOOK_SECRET (docs/gitlab.md)')],
  healthNote: (gitlab) => (gitlab.enabled ? 'webhook at /gitlab/webhook' : 'off: GITLAB_TOKEN and GITLAB_WEBHOOK_SECRET are not set'),
  placeLabel: (place) => {
    const parsed = parseGitlabPlace(place);
    if (!parsed) return undefined;
    return `GitLab ${parsed.kind === 'issues' ? 'issue' : 'merge request'} ${parsed.project}${parsed.kind === 'issues' ? '#' : '!'}${parsed.iid}`;
  },
  // An issue's page needs the instance and the project as GitLab spells it: linked when the trigger knew its URL.
  placeLink: (place, knownUrl) => {
    const label = gitlabModule.placeLabel(place);
    return label === undefined ? undefined : { url: knownUrl, text: label };
  },
  // Personal, project, group and OAuth tokens by GitLab's prefixes, should one be quoted back in an error.
  credentialShapes: [/\bgl(?:pat|oat|ptt|dt|rt|cbt|ft|imt|agent|soat|ffct)-[A-Za-z0-9_-]{16,}/g],
  routeTables: (config) => [
    { where: 'gitlab.projects', routes: config.gitlab.projects },
    { where: 'gitlab.labels', routes: config.gitlab.labels },
  ],
};
