/**
 * The surfaces this service serves, in the order they are shown and started. The one file outside the
 * surfaces' folders that names them: adding a surface is its folder, its module, and a line here.
 */
import { PersonIds } from './surface-kit/person-ids.js';
import type { SurfaceModule } from './surface-kit/surface-module.js';
import { githubModule } from './github/module.js';
import { gitlabModule } from './gitlab/module.js';
import { jiraModule } from './jira/module.js';
import { linearModule } from './linear/module.js';
import { slackModule } from './slack/module.js';
import { teamsModule } from './teams/module.js';

const MODULES = [slackModule, teamsModule, linearModule, githubModule, gitlabModule, jiraModule] as const;

/** Every registered surface, for code that asks each the same thing. */
export const SURFACE_MODULES: readonly SurfaceModule[] = MODULES;

/** The registered modules, each with its own type (for types derived per surface, such as its config section). */
export type RegisteredModules = typeof MODULES;

/** The registered surfaces' names, as a type: `'slack' | 'linear' | …`. */
export type SurfaceName = RegisteredModules[number]['name'];

/** How the registered chat surfaces' users are written as people (`surface-kit/person-ids.ts`). */
export const PERSON_IDS = new PersonIds(MODULES.flatMap(({ name, title, personIds }) => (personIds ? [{ name, title, personIds }] : [])));
