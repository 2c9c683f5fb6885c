/**
 * Values the configuration accepts that code outside it reads too: the logger its levels, the people's
 * keys whose key a run is created with and how long the secret sealing them must be. Here, below the
 * config, so that those folders need not import the config (which imports every surface).
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Whose API key a run is created with (`people.attribution`). */
export const ATTRIBUTIONS = ['service', 'personal_if_connected', 'personal_required'] as const;
export type Attribution = (typeof ATTRIBUTIONS)[number];

/** The shortest `AGENT_BRIDGE_SECRET`: the key box refuses a shorter one, and the config says so at start. */
export const BRIDGE_SECRET_MIN_LENGTH = 32;
