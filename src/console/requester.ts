import type { Requester } from '../core/ports/triggers.js';
import { CONSOLE_ADMIN } from './audit-acts.js';
import type { Viewer } from './deps.js';

/**
 * Who a console form acts as: a person signed in with Slack as themselves (their key, limits and name
 * in messages, as when they ask in Slack), the admin token as the console admin (the service's key).
 */
export function consoleRequester(viewer: Viewer): Requester {
  return viewer.person
    ? { platform: 'slack', id: viewer.person.id, name: viewer.person.name }
    : { platform: 'console', id: CONSOLE_ADMIN, name: 'the console admin' };
}
