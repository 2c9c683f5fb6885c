import type { AccessPolicy } from '../core/ports/intake.js';
import type { StoredTrigger } from '../core/ports/store.js';
import type { Requester } from '../core/ports/triggers.js';

/** Who acts in a Slack payload: their user id and the organisations Slack says they belong to (slack-person.ts). */
export interface SlackPerson {
  id: string;
  /** Team (T…) and enterprise (E…) ids; empty when Slack said none. */
  orgs: readonly string[];
}

/** Our own organisation, as `auth.test` names the bot token's: its workspace and, on Enterprise Grid, its org. */
export interface OwnOrganisation {
  team?: string | undefined;
  enterprise?: string | undefined;
}

/** The Slack policy, told our own organisation once Slack has named it at start. */
export interface SlackAccessPolicy extends AccessPolicy {
  knowOwnOrganisation(own: OwnOrganisation): void;
}

/** A Slack person as a trigger's requester. */
export function slackRequester(person: SlackPerson): Requester {
  return { platform: 'slack', id: person.id, name: `<@${person.id}>`, orgs: [...person.orgs] };
}

/**
 * Who may start, steer and stop runs from Slack: people of our own workspace (and its Enterprise Grid
 * org) and of the organisations `slack.allowed_teams` lists — a Slack Connect guest of any other is
 * refused — and, when `slack.allowed_users` is not empty, only the people it lists. Other sources
 * pass through untouched, as do Slack triggers stored before organisations were recorded.
 */
export function slackAccessPolicy(config: { allowedUsers: readonly string[]; allowedTeams: readonly string[] }): SlackAccessPolicy {
  const users = new Set(config.allowedUsers);
  const organisations = new Set(config.allowedTeams);
  return {
    knowOwnOrganisation(own) {
      for (const id of [own.team, own.enterprise]) if (id) organisations.add(id);
    },
    deny(trigger: Pick<StoredTrigger, 'source' | 'payload'>) {
      if (trigger.source !== 'slack') return undefined;
      const requester = trigger.payload.requester;
      const sorry = `Sorry${requester?.id ? ` <@${requester.id}>` : ''}`;
      const orgs = requester?.orgs;
      if (orgs !== undefined && !orgs.some((id) => organisations.has(id))) {
        return orgs.length === 0
          ? `${sorry}, in a channel shared with other organisations Slack did not say which one this came from, and this service acts only for people of its own workspace and of those in its slack.allowed_teams: mention me instead.`
          : `${sorry}, this service acts only for people of its own Slack workspace and of the organisations listed in its slack.allowed_teams.`;
      }
      if (users.size === 0 || (requester?.id && users.has(requester.id))) return undefined;
      return `${sorry}, only the people listed in this service's slack.allowed_users can start, steer or stop runs here.`;
    },
  };
}

/**
 * What `access` says to a Slack person who acts outside any trigger (opens the assistant panel, pastes a
 * link, clicks a button): undefined when they may, else the reason to tell them.
 */
export function slackUserRefusal(access: AccessPolicy, person: SlackPerson): string | undefined {
  return access.deny({ source: 'slack', payload: { requester: slackRequester(person) } });
}
