/**
 * `github:` in `agent-bridge.yml` (docs/configuration.md, docs/github.md): which repositories and labels
 * start runs, who may besides people with write access, and what on a run's pull request reaches it.
 */
import { z } from 'zod';
import { always, section, withDefault } from '../../config-kit/file-schema-parts.js';
import type { RouteParts } from '../../config-kit/route-schema.js';
import { handleSchema, uniqueIgnoringCase } from '../../config-kit/tracker-keys.js';

const githubRepoKey = z.string().refine((key) => key === '*' || /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/.test(key), {
  error: 'is not a repository: write it as "owner/name" (e.g. acme/web), or "*" for every other repository the App is installed on',
});
const githubLogin = z.string().refine((login) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/.test(login), {
  error: 'is not a GitHub login: write the user name as in their profile URL, without @ (e.g. octocat)',
});
const githubLabel = z.string().refine((label) => label.trim() !== '', { error: 'label name must not be empty' });

/**
 * The `github:` section. A route (a repository's or a label's) may name a chat place: its runs then get
 * a thread there too (as a Linear label's), and a route that asks for approval posts its buttons there.
 */
export function githubFileSection(parts: RouteParts) {
  const githubRoute = parts.companionRoute({});
  return section({
    handle: handleSchema,
    repos: withDefault(z.record(githubRepoKey, githubRoute).superRefine(uniqueIgnoringCase('repository'), always), {}),
    labels: withDefault(z.record(githubLabel, githubRoute).superRefine(uniqueIgnoringCase('label'), always), {}),
    allowed_users: withDefault(z.array(githubLogin), []),
    pull_requests: withDefault(z.enum(['none', 'mentions', 'reviews']), 'reviews'),
    ci_failures: withDefault(z.int().min(0).max(100), 0),
  });
}

export type GithubFile = z.output<ReturnType<typeof githubFileSection>>;
