/** `config.teams`: Teams' part of the validated configuration, from its variables and `teams:`. */
import type { ContextLimits, Followups } from '../../config-kit/conversation-keys.js';
import type { RouteParts } from '../../config-kit/route-schema.js';
import { compact, toRoutes } from '../../config-kit/route-values.js';
import type { Route } from '../../core/intake/routing.js';
import type { TeamsEnv } from './env.js';
import type { TeamsFile } from './file.js';

/** Teams' part of the validated configuration (`config.teams`). */
export interface TeamsSection {
  enabled: boolean;
  clientId?: string;
  clientSecret?: string;
  tenantId?: string;
  openIdMetadataUrl: string;
  loginUrl: string;
  /** Service URLs accepted besides Microsoft's own, without a trailing slash. */
  serviceUrls: string[];
  followups: Followups;
  context: ContextLimits;
  /** Entra object ids, lower-case; empty = everyone in the tenant. */
  allowedUsers: string[];
  /** Channel conversation id (or `*`) → route. */
  channels: Record<string, Route>;
}

/** `config.teams` from its variables and `teams:`. */
export function resolveTeams(env: TeamsEnv, file: TeamsFile, parts: RouteParts): TeamsSection {
  return {
    enabled: env.clientId !== undefined,
    ...compact({ clientId: env.clientId, clientSecret: env.clientSecret, tenantId: env.tenantId }),
    openIdMetadataUrl: env.openIdMetadataUrl,
    loginUrl: env.loginUrl,
    serviceUrls: [...env.serviceUrls],
    followups: file.followups,
    context: { ...file.context },
    allowedUsers: [...file.allowed_users],
    channels: toRoutes(file.channels, parts),
  };
}
