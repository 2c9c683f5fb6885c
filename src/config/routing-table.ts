import type { RoutingTable } from '../core/intake/routing.js';
import type { AppConfig } from './types.js';

/** The routes of the validated config, in the shape the core's routing takes; each surface brings its own (`compose/surfaces.ts`). */
export function routingTable(config: AppConfig): RoutingTable {
  return {
    defaults: config.defaults,
    schedules: Object.fromEntries(
      config.schedules.map((schedule) => [
        schedule.name,
        {
          ...(schedule.config !== undefined && { config: schedule.config }),
          ...(schedule.title !== undefined && { title: schedule.title }),
          ...(schedule.agent_identity_uid !== undefined && { agent_identity_uid: schedule.agent_identity_uid }),
          ...(schedule.factory_uid !== undefined && { factory_uid: schedule.factory_uid }),
          ...(schedule.announce !== undefined && { announce: schedule.announce }),
          ...(schedule.limits !== undefined && { limits: schedule.limits }),
        },
      ]),
    ),
  };
}
