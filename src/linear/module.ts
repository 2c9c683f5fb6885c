/** Linear as the service registers it (`surface-kit/surface-module.ts`), listed in `src/surface-list.ts`. */
import type { SurfaceModule } from '../surface-kit/surface-module.js';
import { linearConfig } from './config/slice.js';

export const linearModule = {
  name: 'linear',
  title: 'Linear',
  kind: 'tracker',
  config: linearConfig,
} as const satisfies SurfaceModule;
