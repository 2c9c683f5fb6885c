/**
 * The requester of a trigger the edge could not clear (`checkRequester`: a label's sender, a member
 * whose access the event does not give), asked of the surface's `RequesterCheck` in the worker, where
 * calling the platform costs no one's acknowledgement.
 */
import type { NewOutboxRow, StoredTrigger } from '../ports/store.js';
import { receivedRows } from './intake-service.js';
import { settle, type Settlement, type StepContext } from './step-context.js';

/** The surface could not be asked who may act (unreachable, failing): the worker asks again later. */
export class RequesterUncheckedError extends Error {
  override readonly name = 'RequesterUncheckedError';
  constructor(source: string, cause: unknown) {
    super(`could not ask ${source} whether the requester may act`, { cause });
  }
}

/**
 * Undefined when the requester may act: what the edge held back is owed now (a start's "received"
 * messages, the surface's marks of receipt), once per key however often this runs. Else the trigger
 * ends ignored and nobody is told — a stranger gets no answer to learn from and the place no noise —
 * while the log says why. Throws `RequesterUncheckedError` when the surface cannot be asked.
 */
export async function clearRequester(ctx: StepContext, trigger: StoredTrigger): Promise<Settlement | undefined> {
  const check = ctx.deps.requesterChecks?.[trigger.source];
  let refused: string | undefined;
  if (!check) refused = `nothing on ${trigger.source} can say who may act`;
  else {
    try {
      refused = await check.refusal(trigger);
    } catch (error) {
      throw new RequesterUncheckedError(trigger.source, error);
    }
  }
  if (refused !== undefined) {
    ctx.deps.logger.info(
      { trigger: trigger.key, requester: trigger.payload.requester?.id, reason: refused },
      'request ignored: its requester may not act there',
    );
    return settle({ state: 'ignored', error: 'not allowed' });
  }
  const owed: NewOutboxRow[] = [...receivedRows(trigger), ...(check?.owedOnceCleared?.(trigger) ?? [])];
  if (owed.length > 0) await ctx.deps.store.outbox.add(owed, ctx.deps.clock.now());
  return undefined;
}
