/**
 * The surfaces as the core sees them (`Surfaces`): every registered module's `Surface`, and the
 * console's, whose runs are started by hand. The core asks them by destination or source, never by name.
 */
import type { AppConfig } from '../config/types.js';
import { consoleSurface } from '../console/surface.js';
import { routeChoices } from '../console/route-choices.js';
import { Surfaces } from '../core/surfaces.js';
import { SURFACE_MODULES } from '../surface-list.js';

/**
 * Every surface the config describes, whether or not its edge is on: a run's places and stored
 * triggers outlive a surface being switched off, and how those places behave does not change with it.
 */
export function registeredSurfaces(config: AppConfig): Surfaces {
  return new Surfaces([...SURFACE_MODULES.map((module) => module.surface(config)), consoleSurface(routeChoices(config))]);
}
