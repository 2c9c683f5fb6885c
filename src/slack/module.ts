/** Slack as the service registers it (`surface-kit/surface-module.ts`), listed in `src/surface-list.ts`. */
import type { SurfaceModule } from '../surface-kit/surface-module.js';

export const slackModule = {
  name: 'slack',
  title: 'Slack',
  kind: 'chat',
  healthNote: (slack: { enabled: boolean; mode: 'http' | 'socket' }) => {
    if (!slack.enabled) return 'off: SLACK_BOT_TOKEN is not set';
    return slack.mode === 'socket' ? 'Socket Mode (SLACK_APP_TOKEN)' : 'HTTP events at /slack/events';
  },
} as const satisfies SurfaceModule;
