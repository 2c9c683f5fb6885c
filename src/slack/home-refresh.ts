/**
 * Republishing a person's Home tab when their key is removed — by `/agent disconnect` in Slack or on
 * the console (their own key page, or an admin's Keys page) — so it stops saying "connected" at once.
 */
import type { IntakeService } from '../core/intake/intake-service.js';
import { homeOpenedSetting } from './setting-names.js';
import type { SettingRepository } from '../core/ports/store.js';
import { HOME_OPENED_KIND } from './home-notifier.js';
import { homeDestination, homeUserOf } from './home-view.js';

export interface HomeRefreshDeps {
  settings: Pick<SettingRepository, 'get'>;
  intake: Pick<IntakeService, 'owe'>;
}

/**
 * Owes one publish of `user`'s Home tab (an outbox row to `slack:home:<user>`) when they have ever
 * opened it; someone who never looked at it is left alone (publishing would create a tab nobody asked
 * for). Needed because opening the tab again the same day publishes nothing new: its once-a-day row
 * exists already, and without a key there is no key mark to make a new one. Returns whether one was owed.
 */
export async function republishHomeAfterKeyRemoved(deps: HomeRefreshDeps, user: string, now: number): Promise<boolean> {
  if (!homeUserOf(homeDestination(user))) return false;
  if ((await deps.settings.get(homeOpenedSetting(user))) === undefined) return false;
  const kind = HOME_OPENED_KIND;
  return (await deps.intake.owe([{ key: `home:${user}:key-removed:${now}`, destination: homeDestination(user), kind, payload: { kind } }])) > 0;
}
