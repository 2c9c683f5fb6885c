/**
 * A surface the service does not have: Microsoft Teams as a second chat surface, its config slice
 * built as every surface's is (`surface-kit/config-slice.ts` from `config-kit/`). Tests add it to the
 * list of surfaces to see the configuration take a surface from its module alone.
 */
import { z } from 'zod';
import { describeRoutes, maskSecret, routeList, type SecretSource } from '../../src/config-kit/describe-parts.js';
import { optionalText, secret } from '../../src/config-kit/env-checks.js';
import { always, emptyIfNull, section, strict, withDefault } from '../../src/config-kit/file-schema-parts.js';
import type { RouteParts } from '../../src/config-kit/route-schema.js';
import { compact, toRoutes } from '../../src/config-kit/route-values.js';
import type { Route } from '../../src/core/intake/routing.js';
import type { ConfigSlice } from '../../src/surface-kit/config-slice.js';

const PASSWORD_HINT = 'find it under Certificates & secrets of your Azure bot';
const CHANNEL = /^19:[A-Za-z0-9_-]+@thread\.tacv2$/;
const channelId = z.string().refine((id) => CHANNEL.test(id), { error: 'is not a Teams channel id such as 19:abc@thread.tacv2' });
const TURN_ON = 'turn Teams on with TEAMS_APP_ID and TEAMS_APP_PASSWORD';

const envShape = { TEAMS_APP_ID: optionalText, TEAMS_APP_PASSWORD: secret(PASSWORD_HINT) };

interface TeamsEnv {
  appId: string | undefined;
  password: string | undefined;
}

function fileSection(parts: RouteParts) {
  const channelRoute = z.preprocess(emptyIfNull, strict(parts.surfaceRouteShape).superRefine(parts.checkRouteTargets, always));
  return section({ channels: withDefault(z.record(channelId, channelRoute), {}) });
}
type TeamsFile = z.output<ReturnType<typeof fileSection>>;

export interface TeamsSection {
  enabled: boolean;
  appId?: string;
  password?: string;
  channels: Record<string, Route>;
}

const teamsConfig = {
  variables: [
    { name: 'TEAMS_APP_ID', secret: false, hint: 'find it on your Azure bot' },
    { name: 'TEAMS_APP_PASSWORD', secret: true, hint: PASSWORD_HINT },
  ],
  envShape,
  setProblems: (env: Readonly<Record<string, string>>) =>
    env['TEAMS_APP_ID'] !== undefined && env['TEAMS_APP_PASSWORD'] === undefined
      ? [{ where: 'TEAMS_APP_PASSWORD', message: 'Teams is half configured: TEAMS_APP_ID is set, but TEAMS_APP_PASSWORD is not — set it', hint: PASSWORD_HINT }]
      : [],
  readEnv: (v: z.output<z.ZodObject<typeof envShape>>) => ({ env: { appId: v.TEAMS_APP_ID, password: v.TEAMS_APP_PASSWORD } }),
  isOn: (env: Readonly<Record<string, string | undefined>>) => env['TEAMS_APP_ID'] !== undefined,
  fileSection,
  resolve: (env: TeamsEnv, file: TeamsFile, parts: RouteParts): TeamsSection => ({
    enabled: env.appId !== undefined,
    ...compact({ appId: env.appId, password: env.password }),
    channels: toRoutes(file.channels, parts),
  }),
  routes: (file: TeamsFile) => [[['teams', 'channels'], file.channels]] as const,
  describe: (teams: TeamsSection, source: (variable: string) => SecretSource | undefined) => ({
    ...teams,
    password: maskSecret(teams.password, source('TEAMS_APP_PASSWORD')) ?? null,
    channels: describeRoutes(teams.channels),
  }),
  summary: (teams: TeamsSection) => (teams.enabled ? `Teams: on (channels: ${routeList(teams.channels)})` : `Teams: off — ${TURN_ON}`),
  warnings: (teams: TeamsSection, label: string) =>
    teams.enabled && Object.keys(teams.channels).length === 0
      ? [
          {
            where: `${label}: teams.channels`,
            message: 'Teams is on, but no channel is listed',
            hint: 'add one, e.g. teams: { channels: { "19:abc@thread.tacv2": {} } }',
          },
        ]
      : [],
  secrets: (teams: TeamsSection) => [teams.password],
  companion: {
    key: 'teams_channel',
    schema: channelId,
    neededForApproval: { message: 'needs teams_channel on this route', hint: 'add teams_channel' },
    whenOff: { message: 'names a Teams channel for its runs, but Teams is off: nothing could be posted there', hint: `${TURN_ON}, or remove teams_channel` },
  },
  scheduleNotify: {
    key: 'teams_channel',
    field: 'teamsChannel',
    schema: channelId,
    whenOff: (schedule: string) => ({
      message: `schedule "${schedule}" reports to a Teams channel, but Teams is off`,
      hint: `${TURN_ON}, or remove notify.teams_channel`,
    }),
  },
} satisfies ConfigSlice<typeof envShape, TeamsEnv, TeamsFile, TeamsSection>;

/** The made-up surface's module, as far as the configuration reads a module. */
export const teamsModule = { name: 'teams', title: 'Microsoft Teams', kind: 'chat', config: teamsConfig } as const;
