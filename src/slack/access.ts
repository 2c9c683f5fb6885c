import type { AccessPolicy } from '../core/ports/intake.js';
import type { StoredTrigger } from '../core/ports/store.js';

/**
 * `slack.allowed_users`: when the list is not empty, only those people may start, steer and stop
 * runs from Slack. Other sources pass through untouched.
 */
export function slackAccessPolicy(allowedUsers: readonly string[]): AccessPolicy {
  const allowed = new Set(allowedUsers);
  return {
    deny(trigger: Pick<StoredTrigger, 'source' | 'payload'>) {
      if (trigger.source !== 'slack' || allowed.size === 0) return undefined;
      const requester = trigger.payload.requester;
      if (requester?.id && allowed.has(requester.id)) return undefined;
      return `Sorry${requester?.id ? ` <@${requester.id}>` : ''}, only the people listed in this service's slack.allowed_users can start, steer or stop runs here.`;
    },
  };
}

/**
 * What `access` says to a Slack user who acts outside any trigger (opens the assistant panel, pastes a
 * link, clicks a button): undefined when they may, else the reason to tell them.
 */
export function slackUserRefusal(access: AccessPolicy, user: string): string | undefined {
  return access.deny({ source: 'slack', payload: { requester: { platform: 'slack', id: user } } });
}
