/**
 * Linear as the service registers it (`surface-kit/surface-module.ts`), listed in `src/surface-list.ts`:
 * an issue tracker. The Linear SDK (about 3 MB) is loaded only when Linear is on.
 */
import { notConfiguredEndpoint } from '../http/health-endpoints.js';
import { companionsOn } from '../config-kit/route-values.js';
import type { SurfaceModuleOf } from '../surface-kit/surface-module.js';
import { linearConfig } from './config/slice.js';
import { linearSurface } from './surface.js';

export const linearModule: SurfaceModuleOf<'linear', typeof linearConfig> = {
  name: 'linear',
  title: 'Linear',
  kind: 'tracker',
  config: linearConfig,
  isOn: (config) => config.linear.enabled,
  surface: (config) => linearSurface(config.linear.labels),
  followupWindowMs: (config) => (config.linear.followups === 'all' ? config.linear.followupWindowMs : 0),
  async start(config, { intake, store, logger, clock, isOn, people }) {
    const linear = config.linear;
    const credentials = linear.accessToken ? { accessToken: linear.accessToken } : linear.apiKey ? { apiKey: linear.apiKey } : undefined;
    if (!linear.enabled || !credentials || !linear.webhookSecret) return undefined;
    const { startLinear } = await import('./index.js');
    const started = await startLinear(
      {
        credentials,
        webhookSecret: linear.webhookSecret,
        apiUrl: linear.apiUrl,
        handle: linear.handle,
        followups: linear.followups,
        context: linear.context,
        cancelOnLabelRemoved: linear.cancelOnLabelRemoved,
        labels: linear.labels,
        // A route's companion chat place needs that chat on (the config refuses one while it is off).
        companions: companionsOn(linear.companions, isOn),
        people,
        projects: linear.projects,
        teams: linear.teams,
        states: linear.states,
        allowedUsers: linear.allowedUsers,
      },
      intake,
      store,
      logger.child({ component: 'linear' }),
      () => clock.now(),
    );
    return {
      endpoints: [started.route],
      notifiers: started.notifiers,
      enricher: started.enricher,
      requesterCheck: started.requesterCheck,
      issueLinker: started.issueLinker,
      emailOf: (userId) => started.api.userEmail(userId),
    };
  },
  offEndpoints: () => [notConfiguredEndpoint('/linear/webhook', 'Linear', 'set LINEAR_API_KEY (or LINEAR_ACCESS_TOKEN) and LINEAR_WEBHOOK_SECRET')],
  healthNote: (linear) =>
    linear.enabled ? 'webhook at /linear/webhook' : 'off: LINEAR_API_KEY (or LINEAR_ACCESS_TOKEN) and LINEAR_WEBHOOK_SECRET are not set',
  placeLabel: (place) => {
    if (place.startsWith('linear-session:')) return `Linear agent session ${place.slice('linear-session:'.length)}`;
    return place.startsWith('linear:') ? `Linear issue ${place.slice('linear:'.length)}` : undefined;
  },
  placeLink: (place, knownUrl) => (place.startsWith('linear:') ? { url: knownUrl, text: `Linear issue ${place.slice('linear:'.length)}` } : undefined),
  routeTables: (config) => [{ where: 'linear.labels', routes: config.linear.labels }],
  async liveChecks(config) {
    if (!config.linear.enabled) return { lines: [] };
    const { linearLiveChecks } = await import('./live-checks.js');
    return linearLiveChecks(config.linear);
  },
};
