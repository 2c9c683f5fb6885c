/**
 * `linear:` in `agent-bridge.yml` (docs/configuration.md, docs/linear.md): the tracker keys every issue
 * tracker has, which labels (and projects) route where, which teams are served and which guests may
 * drive the agent.
 */
import { z } from 'zod';
import { always, optional, section, text, withDefault } from '../../config-kit/file-schema-parts.js';
import type { RouteParts } from '../../config-kit/route-schema.js';
import { checkLabelNames, trackerShape } from '../../config-kit/tracker-keys.js';

/** A Linear user id: a UUID (Linear shows it under Settings → Members, and in the API). */
const linearUserId = z
  .string()
  .trim()
  .refine((id) => /^[0-9a-z]{8}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{12}$/i.test(id), {
    error: 'is not a Linear user id — a UUID such as 0a1b2c3d-0000-4000-8000-000000000000 (not a name or an email)',
  });

/** A project routed by two labels would make the route depend on the order of the file. */
function checkProjectOwners(labels: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const projectOwner = new Map<string, string>();
  for (const [key, route] of Object.entries(labels)) {
    const projects = (route as { projects?: unknown } | null)?.projects;
    if (!Array.isArray(projects)) continue;
    projects.forEach((project: unknown, index) => {
      if (typeof project !== 'string') return;
      const name = project.trim().toLowerCase();
      const owner = projectOwner.get(name);
      if (owner !== undefined && owner !== key) {
        ctx.addIssue({
          code: 'custom',
          path: [key, 'projects', index],
          message: `project "${project.trim()}" is already routed by label "${owner}" — list it once`,
        });
      }
      projectOwner.set(name, owner ?? key);
    });
  }
}

/**
 * The `linear:` section. A label's route may also name a chat place (its runs then get a thread there
 * too) and projects (by name or id): an issue in one of them matches the route as well as one with the label.
 */
export function linearFileSection(parts: RouteParts) {
  const labelRoute = parts.companionRoute({ projects: optional(z.array(text).min(1, { error: 'must list at least one project' })) });
  const labels = z.record(z.string(), labelRoute).superRefine((found, ctx) => {
    if (found === null || typeof found !== 'object') return;
    checkLabelNames(found, ctx);
    checkProjectOwners(found, ctx);
  }, always);
  return section({
    ...trackerShape,
    labels: withDefault(labels, {}),
    teams: withDefault(z.array(text), []),
    // User ids that may start, steer and stop though they are guests of the workspace; apps never.
    allowed_users: withDefault(z.array(linearUserId), []),
  });
}

export type LinearFile = z.output<ReturnType<typeof linearFileSection>>;
