/**
 * A surface the service does not have: "Parley", a second chat surface, its config slice
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

const PASSWORD_HINT = 'find it under Credentials of your Parley app';
const CHANNEL = /^19:[A-Za-z0-9_-]+@thread\.tacv2$/;
const channelId = z.string().refine((id) => CHANNEL.test(id), { error: 'is not a Parley channel id such as 19:abc@thread.tacv2' });
const TURN_ON = 'turn Parley on with PARLEY_APP_ID and PARLEY_APP_PASSWORD';

const envShape = { PARLEY_APP_ID: optionalText, PARLEY_APP_PASSWORD: secret(PASSWORD_HINT) };

interface ParleyEnv {
  appId: string | undefined;
  password: string | undefined;
}

function fileSection(parts: RouteParts) {
  const channelRoute = z.preprocess(emptyIfNull, strict(parts.surfaceRouteShape).superRefine(parts.checkRouteTargets, always));
  return section({ channels: withDefault(z.record(channelId, channelRoute), {}) });
}
type ParleyFile = z.output<ReturnType<typeof fileSection>>;

export interface ParleySection {
  enabled: boolean;
  appId?: string;
  password?: string;
  channels: Record<string, Route>;
}

const parleyConfig = {
  variables: [
    { name: 'PARLEY_APP_ID', secret: false, hint: 'find it on your Parley app' },
    { name: 'PARLEY_APP_PASSWORD', secret: true, hint: PASSWORD_HINT },
  ],
  envShape,
  setProblems: (env: Readonly<Record<string, string>>) =>
    env['PARLEY_APP_ID'] !== undefined && env['PARLEY_APP_PASSWORD'] === undefined
      ? [
          {
            where: 'PARLEY_APP_PASSWORD',
            message: 'Parley is half configured: PARLEY_APP_ID is set, but PARLEY_APP_PASSWORD is not — set it',
            hint: PASSWORD_HINT,
          },
        ]
      : [],
  readEnv: (v: z.output<z.ZodObject<typeof envShape>>) => ({ env: { appId: v.PARLEY_APP_ID, password: v.PARLEY_APP_PASSWORD } }),
  isOn: (env: Readonly<Record<string, string | undefined>>) => env['PARLEY_APP_ID'] !== undefined,
  fileSection,
  resolve: (env: ParleyEnv, file: ParleyFile, parts: RouteParts): ParleySection => ({
    enabled: env.appId !== undefined,
    ...compact({ appId: env.appId, password: env.password }),
    channels: toRoutes(file.channels, parts),
  }),
  routes: (file: ParleyFile) => [[['parley', 'channels'], file.channels]] as const,
  describe: (parley: ParleySection, source: (variable: string) => SecretSource | undefined) => ({
    ...parley,
    password: maskSecret(parley.password, source('PARLEY_APP_PASSWORD')) ?? null,
    channels: describeRoutes(parley.channels),
  }),
  summary: (parley: ParleySection) => (parley.enabled ? `Parley: on (channels: ${routeList(parley.channels)})` : `Parley: off — ${TURN_ON}`),
  warnings: (parley: ParleySection, label: string) =>
    parley.enabled && Object.keys(parley.channels).length === 0
      ? [
          {
            where: `${label}: parley.channels`,
            message: 'Parley is on, but no channel is listed',
            hint: 'add one, e.g. parley: { channels: { "19:abc@thread.tacv2": {} } }',
          },
        ]
      : [],
  secrets: (parley: ParleySection) => [parley.password],
  companion: {
    key: 'parley_channel',
    schema: channelId,
    neededForApproval: { message: 'needs parley_channel on this route', hint: 'add parley_channel' },
    whenOff: { message: 'names a Parley channel for its runs, but Parley is off: nothing could be posted there', hint: `${TURN_ON}, or remove parley_channel` },
  },
  scheduleNotify: {
    key: 'parley_channel',
    field: 'parleyChannel',
    schema: channelId,
    whenOff: (schedule: string) => ({
      message: `schedule "${schedule}" reports to a Parley channel, but Parley is off`,
      hint: `${TURN_ON}, or remove notify.parley_channel`,
    }),
  },
} satisfies ConfigSlice<typeof envShape, ParleyEnv, ParleyFile, ParleySection>;

/** The made-up surface's module, as far as the configuration reads a module. */
export const parleyModule = { name: 'parley', title: 'Parley', kind: 'chat', config: parleyConfig } as const;
