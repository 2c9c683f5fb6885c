import { sectionOf, signInOf, SURFACE_SLICES } from './surface-slices.js';
import type { AppConfig } from './types.js';

/** The secrets each surface's section and console sign-in hold. */
function surfaceSecrets(config: AppConfig): Array<string | undefined> {
  return SURFACE_SLICES.flatMap((slice) => {
    const signIn = signInOf(config, slice);
    return [
      ...slice.config.secrets(sectionOf(config, slice.name)),
      ...(slice.config.signIn && signIn !== undefined ? slice.config.signIn.secrets(signIn) : []),
    ];
  });
}

/**
 * Every secret value the configuration holds, for the logger to scrub from every line: each variable
 * of `SECRET_VARIABLES` has its value here (the database URL by its password). Credentials minted
 * while the service runs (the GitHub App's JWT and installation tokens) are not known yet: the logger
 * knows them by their shape.
 */
export function secretValues(config: AppConfig): Array<string | undefined> {
  return [
    config.agentApi.apiKey,
    ...surfaceSecrets(config),
    config.database.kind === 'postgres' ? config.database.password : undefined,
    config.people.secret,
    config.console.adminToken,
    config.http.metricsToken,
    // An exporter's headers carry the collector's credentials (an API key, a bearer token).
    ...Object.values(config.tracing?.headers ?? {}),
  ];
}
