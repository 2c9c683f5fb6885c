/**
 * Which organisations Slack says a person belongs to, read from each kind of payload (the access
 * policy, access.ts, judges them). Slack names a person's own workspace in different fields per
 * entry point, and never in some (a reaction); the field naming the workspace the app is installed
 * in, or the one a shared channel was created in, is never read as the person's.
 */

/** A workspace (T…) or Enterprise Grid org (E…) id; anything else in a field is ignored. */
const ORGANISATION = /^[TE][A-Z0-9]{1,40}$/;

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

const organisations = (...ids: unknown[]): string[] => [...new Set(ids.filter((id): id is string => typeof id === 'string' && ORGANISATION.test(id)))];

/**
 * The organisations of the person behind an Events API event (a mention, a message, a reaction, a
 * session's stop button, the Home tab or the panel opened, a pasted link): the workspace the event
 * names as the person's (`user_team`, which Slack sets in shared channels, else `team`). When the
 * envelope says the conversation is not shared with another organisation (`is_ext_shared_channel:
 * false`), everyone in it is one of the people or guests of the organisation the app is installed in
 * (`authorizations[0]`, else the envelope's `team_id` / `enterprise_id`): its Enterprise Grid org is
 * theirs too (a channel shared between the org's workspaces), and so is its workspace when the event
 * names none (a reaction, a message with files). In a channel shared with another organisation an
 * event that names no workspace for the person yields none.
 */
export function eventOrgs(event: unknown, envelope: unknown): string[] {
  const fields = record(event) ?? {};
  const own = organisations(typeof fields['user_team'] === 'string' ? fields['user_team'] : fields['team']);
  const body = record(envelope) ?? {};
  if (body['is_ext_shared_channel'] !== false) return own;
  const authorization = Array.isArray(body['authorizations']) ? record(body['authorizations'][0]) : undefined;
  const enterprise = authorization?.['enterprise_id'] ?? body['enterprise_id'];
  return own.length > 0 ? organisations(...own, enterprise) : organisations(authorization?.['team_id'] ?? body['team_id'], enterprise);
}

/**
 * The organisations of the person behind an interaction (a button, the shortcut, a modal submitted):
 * `user.team_id`, their own workspace. The payload's `team` and `enterprise` name where the app is
 * installed, which for a Slack Connect guest is not theirs.
 */
export function interactionOrgs(body: unknown): string[] {
  return organisations(record(record(body)?.['user'])?.['team_id']);
}

/** The organisations of the person behind a slash command: the workspace (`team_id`) and org (`enterprise_id`) it was typed in. */
export function commandOrgs(command: { team_id?: unknown; enterprise_id?: unknown }): string[] {
  return organisations(command.team_id, command.enterprise_id);
}
