/**
 * The surfaces this service serves, in the order they are shown and started. The one file outside the
 * surfaces' folders that names them: adding a surface is its folder, its module, and a line here.
 */
import { githubModule } from './github/module.js';
import { jiraModule } from './jira/module.js';
import { linearModule } from './linear/module.js';
import { slackModule } from './slack/module.js';

export const SURFACE_MODULES = [slackModule, linearModule, githubModule, jiraModule] as const;

/** The registered surfaces' names, as a type: `'slack' | 'linear' | …`. */
export type SurfaceName = (typeof SURFACE_MODULES)[number]['name'];
