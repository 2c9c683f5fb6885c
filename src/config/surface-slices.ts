/**
 * The registered surfaces as the configuration sees them: each one's config slice, in the order of
 * `src/surface-list.ts`, and the route pieces every surface's routes are built from — approval by
 * persons of any chat surface, and the chat surfaces' companion places.
 */
import { routeParts } from '../config-kit/route-schema.js';
import { PERSON_IDS, SURFACE_MODULES, type RegisteredModules } from '../surface-list.js';
import type { ConfigSlice } from '../surface-kit/config-slice.js';
import type { AppConfig } from './types.js';

type Registered = RegisteredModules[number];

/** The names of the secret variables the registered surfaces declare. */
export type SurfaceSecretVariable = {
  [M in Registered as M['name']]: Extract<M['config']['variables'][number], { secret: true }>['name'];
}[Registered['name']];

/** A registered surface's config slice, with its name (its section's key) and title. */
export interface SurfaceSlice {
  readonly name: string;
  readonly title: string;
  readonly config: ConfigSlice;
}

/** The registered surfaces' config slices, in the order of the list. */
export const SURFACE_SLICES: readonly SurfaceSlice[] = SURFACE_MODULES.map(({ name, title, config }) => ({ name, title, config }));

/** What every surface's routes are built from: approval asked of persons of the chat surfaces, the chat surfaces' companion places, and the trackers whose issues a chat message may name. */
export const ROUTE_PARTS = routeParts(
  SURFACE_SLICES.flatMap(({ name, config }) => (config.companion ? [{ ...config.companion, surface: name }] : [])),
  PERSON_IDS,
  SURFACE_SLICES.flatMap(({ name, config }) => (config.issueLinks ? [{ ...config.issueLinks, surface: name }] : [])),
);

/** A registered surface's section of a loaded configuration, as its slice reads it. */
export function sectionOf(config: AppConfig, name: string): { enabled: boolean } {
  const section = (config as unknown as Readonly<Record<string, { enabled: boolean } | undefined>>)[name];
  if (section === undefined) throw new Error(`the configuration has no section "${name}", which a registered surface resolves`);
  return section;
}

/** The console sign-in a surface offers, as loaded: `undefined` when it offers none or its variables are not set. */
export function signInOf(config: AppConfig, slice: SurfaceSlice): unknown {
  return slice.config.signIn && (config.console as Readonly<Record<string, unknown>>)[slice.config.signIn.key];
}
