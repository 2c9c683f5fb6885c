/**
 * What a verified, parsed activity means, stored before Teams gets its answer (docs/architecture.md
 * §8): our own and other bots' messages, other tenants and unknown card verbs are ignored; a message
 * becomes a trigger deduplicated on its activity id in the store; a card's **Stop** is a stop by the
 * person who pressed it — refused at once, privately, for someone `teams.allowed_users` leaves out —
 * and **Approve** / **Reject** go to the approvals. A card press is answered with the message the
 * presser alone sees.
 */
import type { ApprovalDesk } from '../core/approvals/approval-desk.js';
import type { IntakeService } from '../core/intake/intake-service.js';
import type { AccessPolicy } from '../core/ports/intake.js';
import { anchorAliasSetting } from '../core/ports/setting-names.js';
import type { Store } from '../core/ports/store.js';
import { HttpError } from '../http/http-error.js';
import type { WebhookOutcome } from '../http/signed-webhook.js';
import type { Followups } from '../config-kit/conversation-keys.js';
import { APPROVE_VERB, CANCEL_VERB, REJECT_VERB } from './cards.js';
import type { ThreadContext } from './thread-context.js';
import { activityKey, messageTrigger, requesterOf, whereOf } from './normalise.js';
import type { CardPressActivity, MessageActivity, TeamsActivity, UpdateActivity } from './parse-activity.js';
import type { PlaceMemory } from './place-memory.js';
import { conversationBase } from './places.js';

/** The content type of an invoke answer that is a message shown to the presser. */
const INVOKE_MESSAGE = 'application/vnd.microsoft.activity.message';
const invokeAnswer = (text: string) => ({ statusCode: 200, type: INVOKE_MESSAGE, value: text });

export interface ActivityDeps {
  clientId: string;
  tenantId: string;
  followups: Followups;
  intake: Pick<IntakeService, 'submit'>;
  store: Pick<Store, 'eventKeys' | 'anchors' | 'trackedRuns' | 'settings'>;
  access: AccessPolicy;
  approvals: Pick<ApprovalDesk, 'decide'>;
  places: PlaceMemory;
  context: ThreadContext;
  now: () => number;
}

export async function handleActivity(activity: TeamsActivity | { unauthorised: string }, deps: ActivityDeps): Promise<WebhookOutcome> {
  if ('unauthorised' in activity) throw new HttpError(401, 'invalid_signature', activity.unauthorised);
  const tenant = activity.conversation.tenantId ?? activity.channelData?.tenant?.id;
  if (tenant?.toLowerCase() !== deps.tenantId) return { outcome: 'ignored', reason: 'another tenant' };
  if (isUpdate(activity)) {
    // The bot was installed (or the chat changed): nothing to act on, but posts to the tenant's places can go through its service URL now.
    await deps.places.heard({ serviceUrl: activity.serviceUrl, conversationId: activity.conversation.id, personal: false });
    return { outcome: 'ignored', reason: 'an install or conversation update' };
  }
  const botId = `28:${deps.clientId}`;
  if (activity.from.id === botId || activity.from.id.startsWith('28:')) return { outcome: 'ignored', reason: 'a bot’s own message' };
  const key = activityKey(conversationBase(activity.conversation.id), activity.id);
  if (await deps.store.eventKeys.has(key)) return { outcome: 'duplicate', reason: 'activity seen before' };
  return activity.type === 'message' ? message(activity, key, deps) : cardPress(activity, key, deps);
}

function isUpdate(activity: TeamsActivity): activity is UpdateActivity {
  return activity.type === 'conversationUpdate' || activity.type === 'installationUpdate';
}

async function hasActiveRun(place: string, deps: ActivityDeps): Promise<boolean> {
  const runId = await deps.store.anchors.currentRunVia(place, anchorAliasSetting(place));
  const run = runId ? await deps.store.trackedRuns.get(runId) : undefined;
  return run?.tracked === true;
}

async function message(activity: MessageActivity, key: string, deps: ActivityDeps): Promise<WebhookOutcome> {
  const where = whereOf(activity);
  const active = await hasActiveRun(where.place, deps);
  const result = messageTrigger(
    activity,
    { botId: `28:${deps.clientId}`, botName: activity.recipient?.name, tenantId: deps.tenantId, followups: deps.followups, key },
    active,
  );
  const requester = requesterOf(activity, deps.tenantId);
  if (requester) await deps.context.heard(activity, where.place);
  if ('ignored' in result) return { outcome: 'ignored', reason: result.ignored };
  await deps.places.heard({
    serviceUrl: activity.serviceUrl,
    conversationId: activity.conversation.id,
    personal: where.kind === 'personal',
    ...(requester && { user: { id: activity.from.id, aadObjectId: requester.id } }),
  });
  const { accepted } = await deps.intake.submit(result.trigger, { rememberKeys: [key] });
  return accepted ? { outcome: 'stored' } : { outcome: 'duplicate', reason: 'activity seen before' };
}

async function cardPress(activity: CardPressActivity, key: string, deps: ActivityDeps): Promise<WebhookOutcome> {
  const { verb, data } = activity.value.action;
  const requester = requesterOf(activity, deps.tenantId);
  if (!requester)
    return {
      outcome: 'ignored',
      reason: 'a press without an Entra object id',
      answer: invokeAnswer('Only people of this organisation can use these buttons.'),
    };
  const place = whereOf(activity).place;
  if (verb === APPROVE_VERB || verb === REJECT_VERB) {
    const approvalId = typeof data?.['approvalId'] === 'string' ? data['approvalId'].slice(0, 100) : undefined;
    if (!approvalId) return { outcome: 'ignored', reason: 'an approval press without its id' };
    const answer = await deps.approvals.decide(approvalId, verb === APPROVE_VERB ? 'approve' : 'reject', requester, place);
    const said =
      answer.kind === 'decided'
        ? `You ${answer.state} this request.`
        : answer.kind === 'not_approver'
          ? 'Only the listed approvers may decide this request.'
          : 'This request is no longer waiting for a decision.';
    return { outcome: answer.kind === 'decided' ? 'stored' : 'ignored', reason: answer.kind, answer: invokeAnswer(said) };
  }
  if (verb !== CANCEL_VERB) return { outcome: 'ignored', reason: 'a verb the bot never put on a card' };
  const runId = typeof data?.['runId'] === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(data['runId']) ? data['runId'] : undefined;
  const refusal = deps.access.deny({ source: 'teams', payload: { requester } });
  // Told at once, to the presser alone, and nothing is stored: a refused press changes nothing.
  if (refusal) return { outcome: 'ignored', reason: 'not allowed to stop', answer: invokeAnswer(refusal) };
  const reference = {
    activityId: activity.replyToId ?? activity.id,
    conversationId: activity.conversation.id,
    serviceUrl: activity.serviceUrl,
    userId: activity.from.id,
  };
  await deps.places.heard({
    serviceUrl: activity.serviceUrl,
    conversationId: activity.conversation.id,
    personal: false,
    user: { id: activity.from.id, aadObjectId: requester.id },
  });
  const { accepted } = await deps.intake.submit(
    { kind: 'cancel', key, source: 'teams', anchor: place, payload: { requester, reference, ...(runId && { runId }) } },
    { rememberKeys: [key] },
  );
  return { outcome: accepted ? 'stored' : 'duplicate', answer: invokeAnswer(accepted ? 'Stopping the run…' : 'Already asked to stop.') };
}
