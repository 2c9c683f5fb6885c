/** Jira as the service registers it (`surface-kit/surface-module.ts`), listed in `src/surface-list.ts`. */
import type { SurfaceModule } from '../surface-kit/surface-module.js';
import { jiraConfig } from './config/slice.js';

export const jiraModule = {
  name: 'jira',
  title: 'Jira',
  kind: 'tracker',
  config: jiraConfig,
} as const satisfies SurfaceModule;
