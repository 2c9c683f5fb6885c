/** GitHub as the service registers it (`surface-kit/surface-module.ts`), listed in `src/surface-list.ts`. */
import type { SurfaceModule } from '../surface-kit/surface-module.js';

export const githubModule = {
  name: 'github',
  title: 'GitHub',
  kind: 'tracker',
  healthNote: (github) =>
    github.enabled ? 'webhook at /github/webhook' : 'off: GITHUB_APP_ID, GITHUB_PRIVATE_KEY_PATH (or GITHUB_PRIVATE_KEY) and GITHUB_WEBHOOK_SECRET are not set',
} as const satisfies SurfaceModule;
