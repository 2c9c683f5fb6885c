/** Linear as the service registers it (`surface-kit/surface-module.ts`), listed in `src/surface-list.ts`. */
import type { SurfaceModule } from '../surface-kit/surface-module.js';

export const linearModule = {
  name: 'linear',
  title: 'Linear',
  kind: 'tracker',
} as const satisfies SurfaceModule;
