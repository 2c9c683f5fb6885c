/**
 * The pieces of what `config check` and the start-up log show: secrets masked (whether set, where
 * from, how long — never a character of the value), routes with their free-form `config` masked where
 * it looks secret, and route lists in words.
 */
import type { Route } from '../core/intake/routing.js';

/** Where a secret was set: the environment, the `.env` file, or the config file (route configs). */
export type SecretSource = 'env' | '.env' | 'file';

/**
 * `set (from env), 32 characters`: whether a secret is set, where from and how long — enough to spot
 * a missing, misplaced or truncated secret, and nothing of its value (not even a prefix: a known
 * prefix such as `xoxb-` plus the length narrows a guess, and a shown prefix is one more place a
 * secret leaks from). Unset stays `undefined`.
 */
export function maskSecret(secret: string | undefined, source?: SecretSource): string | undefined {
  if (secret === undefined) return undefined;
  return `set${source ? ` (from ${source})` : ''}, ${secret.length} character${secret.length === 1 ? '' : 's'}`;
}

/** Keys inside a route's free-form `config` whose values are treated as secrets. */
const SECRET_KEY = /token|secret|password|passwd|api[-_]?key|apikey|authorization|credential|private[-_]?key|cookie/i;
/** Objects whose every string value is treated as a secret (e.g. an MCP server's env and headers). */
const SECRET_CONTAINER = /^(env|headers|environment|secrets)$/i;

function maskDeep(value: unknown, secretAll = false): unknown {
  if (typeof value === 'string') return secretAll ? maskSecret(value, 'file') : value;
  if (Array.isArray(value)) return value.map((item) => maskDeep(item, secretAll));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskDeep(item, secretAll || SECRET_KEY.test(key) || SECRET_CONTAINER.test(key))]));
}

/** A route as shown: its `config` masked where it looks secret. */
export function describeRoute(route: Route): Record<string, unknown> {
  return route.config === undefined ? { ...route } : { ...route, config: maskDeep(route.config) };
}

/** Routes as shown, by their keys. */
export function describeRoutes(routes: Record<string, Route>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(routes).map(([key, route]) => [key, describeRoute(route)]));
}

/** `1 route`, `2 routes`. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** A word with its indefinite article: "a Slack user ID", "an Alpha user ID". */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}

/** The routes' keys; `none` says what having none means on that surface (default: the defaults apply everywhere). */
export function routeList(routes: Record<string, Route>, none = 'no routes (defaults everywhere)'): string {
  const keys = Object.keys(routes);
  return keys.length === 0 ? none : `${plural(keys.length, 'route')}: ${keys.join(', ')}`;
}
