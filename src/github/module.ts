/** GitHub as the service registers it (`surface-kit/surface-module.ts`), listed in `src/surface-list.ts`. */
import type { SurfaceModule } from '../surface-kit/surface-module.js';
import { githubConfig } from './config/slice.js';

export const githubModule = {
  name: 'github',
  title: 'GitHub',
  kind: 'tracker',
  config: githubConfig,
} as const satisfies SurfaceModule;
