import type { Requester } from '../core/ports/triggers.js';
import { PERSON_IDS } from '../surface-list.js';
import { CONSOLE_ADMIN } from './audit-acts.js';
import type { Viewer } from './deps.js';

/**
 * Who a console form acts as: a person signed in as themselves is the user of their own chat surface
 * (their key, limits and name in messages, as when they ask there), the admin token the console admin
 * (the service's key).
 */
export function consoleRequester(viewer: Viewer): Requester {
  if (!viewer.person) return { platform: 'console', id: CONSOLE_ADMIN, name: 'the console admin' };
  const person = PERSON_IDS.parse(viewer.person.id);
  // A sign-in names a chat user; one of no registered surface still acts as themselves, never as the admin.
  return person
    ? { platform: person.surface, id: person.userId, name: viewer.person.name }
    : { platform: 'console', id: viewer.person.id, name: viewer.person.name };
}
