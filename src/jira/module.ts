/** Jira as the service registers it (`surface-kit/surface-module.ts`), listed in `src/surface-list.ts`. */
import type { SurfaceModule } from '../surface-kit/surface-module.js';

export const jiraModule = {
  name: 'jira',
  title: 'Jira',
  kind: 'tracker',
  healthNote: (jira) => (jira.enabled ? 'webhook at /jira/webhook' : 'off: JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN and JIRA_WEBHOOK_SECRET are not set'),
} as const satisfies SurfaceModule;
