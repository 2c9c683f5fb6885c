/**
 * Microsoft Teams as the service registers it (`surface-kit/surface-module.ts`), listed in
 * `src/surface-list.ts`: a chat whose users are the bridge's people (`teams:<Entra object id>`), and
 * Sign in with Microsoft on the console. Its edge and connector client are loaded only when Teams is on.
 */
import { notConfiguredEndpoint } from '../http/health-endpoints.js';
import type { SurfaceModuleOf } from '../surface-kit/surface-module.js';
import { teamsAccessPolicy } from './access.js';
import { TEAMS_PERSON_IDS } from './config/ids.js';
import { teamsConfig } from './config/slice.js';
import { parseTeamsPlace } from './places.js';
import { microsoftSignIn } from './sign-in/provider.js';
import { teamsSurface } from './surface.js';

const TURN_ON = 'set TEAMS_CLIENT_ID, TEAMS_CLIENT_SECRET and TEAMS_TENANT_ID (docs/teams.md)';

export const teamsModule: SurfaceModuleOf<'teams', typeof teamsConfig> = {
  name: 'teams',
  title: 'Microsoft Teams',
  kind: 'chat',
  personIds: TEAMS_PERSON_IDS,
  config: teamsConfig,
  signIn: microsoftSignIn,
  isOn: (config) => config.teams.enabled,
  surface: (config) => teamsSurface(config.teams.channels),
  access: (config) => teamsAccessPolicy(config.teams.allowedUsers, config.teams.tenantId),
  async start(config, { intake, store, logger, clock, approvals, access, people }) {
    const teams = config.teams;
    if (!teams.enabled || !teams.clientId || !teams.clientSecret || !teams.tenantId) return undefined;
    const { startTeams } = await import('./index.js');
    const started = await startTeams(
      {
        clientId: teams.clientId,
        clientSecret: teams.clientSecret,
        tenantId: teams.tenantId,
        openIdMetadataUrl: teams.openIdMetadataUrl,
        loginUrl: teams.loginUrl,
        serviceUrls: teams.serviceUrls,
        followups: teams.followups,
        context: teams.context,
        channels: teams.channels,
      },
      { intake, store, logger: logger.child({ component: 'teams' }), clock, approvals, access, people },
    );
    return {
      endpoints: [started.route],
      notifiers: [started.notifier],
      enricher: started.enricher,
      people: started.people,
    };
  },
  offEndpoints: () => [notConfiguredEndpoint('/teams/messages', 'Microsoft Teams', TURN_ON)],
  healthNote: (teams) => (teams.enabled ? 'messages at /teams/messages' : 'off: TEAMS_CLIENT_ID is not set'),
  placeLabel: (place) => {
    const parsed = parseTeamsPlace(place);
    if (!parsed) return undefined;
    switch (parsed.kind) {
      case 'thread':
        return `Teams thread ${parsed.rootId} in ${parsed.channelId}`;
      case 'channel':
        return `Teams channel ${parsed.channelId} (a thread of its own)`;
      case 'chat':
        return `Teams chat ${parsed.conversationId}`;
      case 'person':
        return `Teams 1:1 chat with ${parsed.aadObjectId}`;
    }
  },
  // Teams' links need the team's group id and tenant, which a place alone does not carry: linked when its trigger knew the URL.
  placeLink: (place, knownUrl) => {
    const label = teamsModule.placeLabel(place);
    return label === undefined ? undefined : { text: label, url: knownUrl };
  },
  routeTables: (config) => [{ where: 'teams.channels', routes: config.teams.channels }],
  liveChecks: async (config) => (await import('./live-checks.js')).teamsLiveChecks(config.teams),
  // Bearer tokens of Microsoft's identity platform (JWTs), should one be quoted back in an error.
  credentialShapes: [/\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*/g],
};
