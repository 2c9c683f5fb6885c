/**
 * Slack as the service registers it (`surface-kit/surface-module.ts`), listed in `src/surface-list.ts`:
 * a chat whose users are the bridge's people, and Sign in with Slack on the console. Bolt is loaded
 * only when Slack is on.
 */
import { keyPageUrl } from '../people/key-page.js';
import { notConfiguredEndpoint } from '../http/health-endpoints.js';
import type { SurfaceModuleOf } from '../surface-kit/surface-module.js';
import { SLACK_PERSON_IDS } from './config/ids.js';
import { slackConfig } from './config/slice.js';
import { slackAccessPolicy } from './access.js';
import { slackSignIn } from './sign-in/provider.js';
import { slackSurface } from './surface.js';

export const slackModule: SurfaceModuleOf<'slack', typeof slackConfig> = {
  name: 'slack',
  title: 'Slack',
  kind: 'chat',
  personIds: SLACK_PERSON_IDS,
  connectCommand: '`/agent connect`',
  config: slackConfig,
  signIn: slackSignIn,
  isOn: (config) => config.slack.enabled,
  surface: (config) => slackSurface(config.slack.channels),
  access: (config) => slackAccessPolicy({ allowedUsers: config.slack.allowedUsers, allowedTeams: config.slack.allowedTeams }),
  followupWindowMs: (config) => (config.slack.followups === 'all' ? config.slack.followupWindowMs : 0),
  async start(config, { intake, store, access, logger, clock, approvals }) {
    const slack = config.slack;
    if (!slack.enabled || !slack.botToken) return undefined;
    const transport =
      slack.mode === 'socket' && slack.appToken
        ? ({ kind: 'socket', appToken: slack.appToken } as const)
        : slack.signingSecret
          ? ({ kind: 'http', signingSecret: slack.signingSecret } as const)
          : undefined;
    // The config schema already refuses a bot token without either; this keeps the types honest.
    if (!transport) throw new Error('Slack needs SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode) with SLACK_BOT_TOKEN');
    const { startSlack } = await import('./index.js');
    const started = await startSlack(
      {
        botToken: slack.botToken,
        transport,
        apiUrl: slack.apiUrl,
        followups: slack.followups,
        context: slack.context,
        admins: config.console.admins,
        keyPageUrl: keyPageUrl(config.http.publicUrl),
        channels: slack.channels,
        unfurlDomains: slack.unfurlDomains,
        triggers: slack.triggers,
        attribution: config.people.attribution,
      },
      { intake, store, access, logger, approvals, now: () => clock.now() },
    );
    return {
      // In Socket Mode events arrive over the WebSocket; the route still says so.
      endpoints: [
        started.route ??
          notConfiguredEndpoint('/slack/events', 'Slack over HTTP', 'Slack runs in Socket Mode here (SLACK_APP_TOKEN); events arrive over the WebSocket'),
      ],
      notifiers: [started.notifier],
      enricher: started.enricher,
      linksIssuesOf: slack.linksIssuesOf.map(({ surface }) => surface),
      sessionPlaces: started.sessionPlaces,
      people: {
        userByEmail: (email) => started.userByEmail(email),
        displayName: (user) => started.displayName(user),
        ...(started.teamId && { workspace: started.teamId }),
        keyRemoved: (person) => started.keyRemoved(person),
      },
      stop: () => started.stop(),
    };
  },
  offEndpoints: () => [
    notConfiguredEndpoint('/slack/events', 'Slack over HTTP', 'set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode)'),
  ],
  healthNote: (slack: { enabled: boolean; mode: 'http' | 'socket' }) => {
    if (!slack.enabled) return 'off: SLACK_BOT_TOKEN is not set';
    return slack.mode === 'socket' ? 'Socket Mode (SLACK_APP_TOKEN)' : 'HTTP events at /slack/events';
  },
  placeLabel: (place) => {
    const thread = /^slack:([A-Z0-9]+):(\d+\.\d+)$/i.exec(place);
    if (thread) return `Slack thread ${thread[2]} in ${thread[1]}`;
    const channel = /^slack:([A-Z0-9]+)$/i.exec(place);
    if (channel) return `Slack channel ${channel[1]} (a thread of its own)`;
    const home = /^slack:home:([A-Z0-9]+)$/i.exec(place);
    return home ? `Slack Home tab of ${home[1]}` : undefined;
  },
  placeLink: (place) => {
    const thread = /^slack:([A-Z0-9]+):(\d+)\.(\d+)$/.exec(place);
    if (thread) return { url: `https://slack.com/archives/${thread[1]}/p${thread[2]}${thread[3]}`, text: `Slack thread in ${thread[1]}` };
    const channel = /^slack:([A-Z0-9]+)$/.exec(place);
    return channel ? { url: `https://slack.com/archives/${channel[1]}`, text: `Slack channel ${channel[1]} (a thread of its own)` } : undefined;
  },
  routeTables: (config) => [{ where: 'slack.channels', routes: config.slack.channels }],
  // Its tokens (`xoxb-…`, `xoxp-…`, `xapp-…`), should a platform quote one back.
  credentialShapes: [/\b(?:xox[a-z]|xapp)-[A-Za-z0-9-]{8,}/gi],
};
