/**
 * The limit check of a start, in the intake worker after dedupe and right before
 * the run API is called: the start reserves its room under `limits.per_person` and its route's
 * `limits` in one store statement (`usage.reserveStart`), or settles ignored (`limit`) — not retried —
 * with the asker told which limit, its value and when it frees up. Nothing limited: no statement.
 */
import type { StoredTriggerOf } from '../ports/store.js';
import type { StartPayload } from '../ports/triggers.js';
import { accountingOf } from '../intake/accounting.js';
import type { ResolvedRoute } from '../intake/routing.js';
import { settle, type Settlement, type StepContext, type UsableKey } from '../intake/step-context.js';
import { limitMessages } from './limit-messages.js';
import { NO_LIMITS, anyLimit, utcDayStart, utcMonthStart } from './limits.js';

/** Reservations older than this are deleted: no trigger is still worked that long after (`intake.retry_window` is at most 30 days). */
const RESERVATIONS_KEPT_MS = 32 * 86_400_000;

/** Undefined: the start may go ahead (reserved, or nothing limits it); else its settlement. */
export async function checkLimits(
  ctx: StepContext,
  trigger: StoredTriggerOf<'start'>,
  choice: UsableKey,
  route: ResolvedRoute,
  payload: StartPayload,
): Promise<Settlement | undefined> {
  const { askedBy, routeName } = accountingOf(choice, route, payload);
  const personLimits = ctx.deps.limits?.perPerson;
  const personLimited = askedBy !== undefined && anyLimit(personLimits);
  if (!personLimited && !anyLimit(route.limits)) return undefined;
  const now = ctx.deps.clock.now();
  const outcome = await ctx.deps.store.usage.reserveStart({
    triggerKey: trigger.key,
    ...(askedBy !== undefined && { person: { id: askedBy, limits: personLimits ?? NO_LIMITS } }),
    route: { name: routeName, ...(route.limits && { limits: route.limits }) },
    now,
    dayStart: utcDayStart(now),
    monthStart: utcMonthStart(now),
    recent: now - RESERVATIONS_KEPT_MS,
  });
  if (outcome.reserved) return undefined;
  ctx.deps.logger.info(
    { trigger: trigger.key, scope: outcome.scope, limit: outcome.limit, value: outcome.value, used: outcome.used },
    'start refused: over a limit',
  );
  return settle({ state: 'ignored', error: 'limit' }, { owed: limitMessages(trigger, outcome, routeName, now, ctx.surfaces) });
}
