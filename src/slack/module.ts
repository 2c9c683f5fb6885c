/** Slack as the service registers it (`surface-kit/surface-module.ts`), listed in `src/surface-list.ts`. */
import type { SurfaceModule } from '../surface-kit/surface-module.js';
import { slackConfig } from './config/slice.js';

export const slackModule = {
  name: 'slack',
  title: 'Slack',
  kind: 'chat',
  config: slackConfig,
} as const satisfies SurfaceModule;
