/**
 * Routes that match by project (docs/linear.md "Projects"): a `linear.labels` entry
 * may list `projects` (names or ids); an issue created in one of them, or moved into one, starts a run
 * under that entry's route as its label would. Leaving the project stops nothing.
 */
import type { LinearIssueWebhook } from './parse-webhook.js';

/** The project an Issue event put the issue in: created in it, or moved into it (`updatedFrom.projectId` is there). */
export function enteredProject(envelope: LinearIssueWebhook): { id: string; name?: string } | undefined {
  const issue = envelope.data;
  const id = issue.projectId ?? issue.project?.id;
  if (id === undefined) return undefined;
  const name = issue.project?.name;
  const entered = { id, ...(name !== undefined && { name }) };
  if (envelope.action === 'create') return entered;
  const from = envelope.updatedFrom;
  if (envelope.action !== 'update' || from === undefined || !('projectId' in from) || from.projectId === id) return undefined;
  return entered;
}

/**
 * The route (lower-cased label name) whose `projects` name the project, by id or by name
 * (case-insensitive). The config refuses a project listed by two routes, so at most one matches.
 */
export function projectRoute(projects: Readonly<Record<string, readonly string[]>> | undefined, project: { id: string; name?: string }): string | undefined {
  const name = project.name?.trim().toLowerCase();
  for (const [route, listed] of Object.entries(projects ?? {})) {
    if (listed.some((entry) => entry === project.id || (name !== undefined && entry.trim().toLowerCase() === name))) return route;
  }
  return undefined;
}
