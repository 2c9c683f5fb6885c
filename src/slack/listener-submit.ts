/**
 * How every Slack listener stores a trigger: the places it reports to added (the Home tab of someone
 * who uses it), its route chosen by what the person looks at (the assistant panel's channel, the
 * agent view's channel), the assistant status set, then handed to the intake — nothing slow.
 */
import type { AllMiddlewareArgs } from '@slack/bolt';
import type { IntakeService } from '../core/intake/intake-service.js';
import type { Logger } from '../core/ports/logger.js';
import { homeOpenedSetting } from './setting-names.js';
import type { SettingRepository } from '../core/ports/store.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import { withViewedChannelRoute } from './agent-view.js';
import { withAssistantStatus, withContextRoute } from './assistant.js';
import { homeDestination, homeUserOf } from './home-view.js';

/** Stores what a listener read (nothing when it read nothing); `context` is Bolt's, for the log line. */
export type SubmitTrigger = (input: TriggerInput | undefined, context?: Pick<AllMiddlewareArgs['context'], 'retryNum'>) => Promise<void>;

/** The submit every listener shares; `routedChannels` are the channels with a route of their own. */
export function listenerSubmit(deps: {
  intake: Pick<IntakeService, 'submit'>;
  settings: Pick<SettingRepository, 'get'>;
  routedChannels: ReadonlySet<string>;
  logger: Logger;
}): SubmitTrigger {
  const { settings, routedChannels } = deps;
  return async (input, context = {}) => {
    const home = await withHome(input, settings);
    const routed = home && (await withViewedChannelRoute(await withContextRoute(home, settings, routedChannels), settings, routedChannels));
    const trigger = routed && withAssistantStatus(routed);
    if (!trigger) return;
    const { accepted } = await deps.intake.submit(trigger);
    deps.logger.debug(
      { key: trigger.key, kind: trigger.kind, accepted, retryNum: context.retryNum },
      accepted ? 'slack trigger stored' : 'slack trigger already stored',
    );
  };
}

/**
 * A run started from Slack by someone who uses their Home tab also keeps it current (an outbox
 * destination of its own). Only then: each state change costs a `views.publish`, delivered one at a
 * time per person, which people who never look at the tab should not pay for.
 */
async function withHome(trigger: TriggerInput | undefined, settings: Pick<SettingRepository, 'get'>): Promise<TriggerInput | undefined> {
  if (trigger?.kind !== 'start' || !trigger.payload.requester || !homeUserOf(homeDestination(trigger.payload.requester.id))) return trigger;
  const home = homeDestination(trigger.payload.requester.id);
  if (trigger.payload.destinations.includes(home)) return trigger;
  if ((await settings.get(homeOpenedSetting(trigger.payload.requester.id))) === undefined) return trigger;
  return { ...trigger, payload: { ...trigger.payload, destinations: [...trigger.payload.destinations, home] } };
}
