/** Linear as the service registers it (`surface-kit/surface-module.ts`), listed in `src/surface-list.ts`. */
import type { SurfaceModule } from '../surface-kit/surface-module.js';

export const linearModule = {
  name: 'linear',
  title: 'Linear',
  kind: 'tracker',
  healthNote: (linear) =>
    linear.enabled ? 'webhook at /linear/webhook' : 'off: LINEAR_API_KEY (or LINEAR_ACCESS_TOKEN) and LINEAR_WEBHOOK_SECRET are not set',
} as const satisfies SurfaceModule;
