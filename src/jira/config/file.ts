/**
 * `jira:` in `agent-bridge.yml` (docs/configuration.md, docs/jira.md): the keys and meanings of `linear:`,
 * with `projects` (project keys served; empty = all) for `teams`.
 */
import { z } from 'zod';
import { always, section, withDefault } from '../../config-kit/file-schema-parts.js';
import type { RouteParts } from '../../config-kit/route-schema.js';
import { checkLabelNames, trackerShape } from '../../config-kit/tracker-keys.js';

/** A Jira project key such as ENG (letters, digits and underscores, starting with a letter). */
const jiraProjectKey = z
  .string()
  .trim()
  .refine((key) => /^[A-Za-z][A-Za-z0-9_]{0,254}$/.test(key), { error: 'is not a Jira project key such as ENG (the prefix of its issue keys)' });

/**
 * An Atlassian account id as Jira shows it in a profile's URL or the REST API: `5b10ac8d82e05b22cc7d4ef5`,
 * or a prefix, a colon and a UUID (`557058:f58131cb-…`).
 */
const jiraAccountId = z
  .string()
  .trim()
  .refine((id) => /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}(?::[A-Za-z0-9-]{1,64})?$/.test(id), {
    error: 'is not an Atlassian account id — copy it from the person’s profile URL (…/jira/people/<account id>), e.g. 5b10ac8d82e05b22cc7d4ef5',
  });

/**
 * The `jira:` section. A label's route may also name a chat place (its runs then get a thread there
 * too), and ask for approval like every surface's route (its buttons then go to that place).
 */
export function jiraFileSection(parts: RouteParts) {
  // Jira labels are single words: Jira itself refuses a label with a space.
  const labels = z.record(z.string(), parts.companionRoute({})).superRefine((found, ctx) => {
    if (found === null || typeof found !== 'object') return;
    checkLabelNames(found, ctx);
    for (const key of Object.keys(found)) {
      if (/\s/.test(key.trim()))
        ctx.addIssue({ code: 'custom', path: [key], message: 'Jira labels cannot contain spaces — write it as Jira shows it, e.g. agent-web' });
    }
  }, always);
  return section({
    ...trackerShape,
    labels: withDefault(labels, {}),
    projects: withDefault(z.array(jiraProjectKey), []),
    // Account ids that may start, steer and stop besides the people who may edit the issue; customers and apps never.
    allowed_users: withDefault(z.array(jiraAccountId), []),
  });
}

export type JiraFile = z.output<ReturnType<typeof jiraFileSection>>;
