import type { AccessPolicy } from '../core/ports/intake.js';
import type { StoredTrigger } from '../core/ports/store.js';

/**
 * Who may start, steer and stop runs from Teams: people of our own tenant (a guest's activity names
 * their home tenant in `orgs`, and a cross-tenant chat another one) and, when `teams.allowed_users` is
 * not empty, only the Entra object ids it lists. Other sources pass through untouched.
 */
export function teamsAccessPolicy(allowedUsers: readonly string[], tenantId?: string): AccessPolicy {
  const users = new Set(allowedUsers.map((id) => id.toLowerCase()));
  return {
    deny(trigger: Pick<StoredTrigger, 'source' | 'payload'>) {
      if (trigger.source !== 'teams') return undefined;
      const requester = trigger.payload.requester;
      const name = requester?.name ? ` ${requester.name}` : '';
      const orgs = requester?.orgs;
      if (tenantId !== undefined && orgs !== undefined && !orgs.includes(tenantId)) {
        return `Sorry${name}, this service acts only for people of its own Microsoft 365 organisation.`;
      }
      if (users.size === 0) return undefined;
      if (requester?.id !== undefined && users.has(requester.id.toLowerCase())) return undefined;
      return `Sorry${name}, only the people listed in teams.allowed_users may start, steer or stop runs here.`;
    },
  };
}
