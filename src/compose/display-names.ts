/** People's names for the console, from Slack when it is on (issue 20: who each run belongs to). */
import type { Clock } from '../core/ports/clock.js';
import { CachedDisplayNames, type DisplayNames } from '../people/display-names.js';

/** Slack names by user id, kept an hour (a miss or failure five minutes); pages never wait long for them. */
export function displayNames(slack: { displayName(user: string): Promise<string | undefined> }, clock: Pick<Clock, 'now'>): DisplayNames {
  return new CachedDisplayNames({ lookup: (user) => slack.displayName(user), clock });
}
