/**
 * Jira as the service registers it (`surface-kit/surface-module.ts`), listed in `src/surface-list.ts`:
 * a Jira Cloud site whose issues start runs.
 */
import { notConfiguredEndpoint } from '../http/health-endpoints.js';
import { companionsOn } from '../config-kit/route-values.js';
import type { SurfaceModuleOf } from '../surface-kit/surface-module.js';
import { jiraConfig } from './config/slice.js';
import { jiraSurface } from './surface.js';

export const jiraModule: SurfaceModuleOf<'jira', typeof jiraConfig> = {
  name: 'jira',
  title: 'Jira',
  kind: 'tracker',
  config: jiraConfig,
  isOn: (config) => config.jira.enabled,
  surface: (config) => jiraSurface(config.jira.labels),
  followupWindowMs: (config) => (config.jira.followups === 'all' ? config.jira.followupWindowMs : 0),
  async start(config, { intake, store, logger, clock, isOn, people }) {
    const jira = config.jira;
    if (!jira.enabled || !jira.baseUrl || !jira.email || !jira.apiToken || !jira.webhookSecret) return undefined;
    const { startJira } = await import('./index.js');
    const started = await startJira(
      {
        baseUrl: jira.baseUrl,
        email: jira.email,
        apiToken: jira.apiToken,
        webhookSecret: jira.webhookSecret,
        handle: jira.handle,
        followups: jira.followups,
        context: jira.context,
        cancelOnLabelRemoved: jira.cancelOnLabelRemoved,
        labels: jira.labels,
        // A route's companion chat place needs that chat on (the config refuses one while it is off).
        companions: companionsOn(jira.companions, isOn),
        people,
        projects: jira.projects,
        states: jira.states,
        allowedUsers: jira.allowedUsers,
      },
      intake,
      store,
      logger.child({ component: 'jira' }),
      () => clock.now(),
    );
    return {
      endpoints: [started.route],
      notifiers: [started.notifier],
      enricher: started.enricher,
      requesterCheck: started.requesterCheck,
      issueLinker: started.issueLinker,
      emailOf: (accountId) => started.api.userEmail(accountId),
      stop: () => started.close(),
    };
  },
  offEndpoints: () => [notConfiguredEndpoint('/jira/webhook', 'Jira', 'set JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN and JIRA_WEBHOOK_SECRET')],
  healthNote: (jira) => (jira.enabled ? 'webhook at /jira/webhook' : 'off: JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN and JIRA_WEBHOOK_SECRET are not set'),
  placeLabel: (place) => (place.startsWith('jira:') ? `Jira issue ${place.slice('jira:'.length)}` : undefined),
  placeLink: (place, knownUrl) => (place.startsWith('jira:') ? { url: knownUrl, text: `Jira issue ${place.slice('jira:'.length)}` } : undefined),
  routeTables: (config) => [{ where: 'jira.labels', routes: config.jira.labels }],
};
