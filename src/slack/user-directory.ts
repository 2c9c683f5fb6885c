/**
 * Slack users by email and by id: `users.lookupByEmail` (scope `users:read.email`) finds a
 * user only by a confirmed email, which is what makes a Linear user with that email the same person.
 */
import type { SlackCalls } from './slack-calls.js';

/** The id of the active human Slack user with this confirmed email; undefined when there is none. Throws on other failures. */
export async function slackUserByEmail(client: Pick<SlackCalls, 'users'>, email: string): Promise<string | undefined> {
  try {
    const answer = await client.users.lookupByEmail({ email });
    const user = answer.user;
    if (!user?.id || user.deleted === true || user.is_bot === true || user.is_app_user === true) return undefined;
    return user.id;
  } catch (error) {
    // Slack's word for "no confirmed email matches"; anything else (scope missing, rate limit) is a failure.
    const code = (error as { data?: { error?: string } }).data?.error;
    if (code === 'users_not_found') return undefined;
    // The people code logs a failure's hint, never its message: say here how to fix the app.
    if (code === 'missing_scope' && error instanceof Error) throw Object.assign(error, { hint: MISSING_EMAIL_SCOPE });
    throw error;
  }
}

const MISSING_EMAIL_SCOPE =
  'Slack refused users.lookupByEmail (missing_scope): add users:read.email to the Slack app’s bot scopes (manifest.yml) and reinstall it';

/** A Slack user's name as people know it (`users.info`): the display name, else the real name; undefined for an unknown user. */
export async function slackDisplayName(client: Pick<SlackCalls, 'users'>, user: string): Promise<string | undefined> {
  try {
    const answer = await client.users.info({ user });
    const profile = answer.user?.profile;
    const name = profile?.display_name || profile?.real_name || answer.user?.real_name;
    return name?.trim() || undefined;
  } catch (error) {
    if ((error as { data?: { error?: string } }).data?.error === 'user_not_found') return undefined;
    throw error;
  }
}
