/**
 * The notifier of Teams places (docs/architecture.md §6, docs/teams.md): one status card per run,
 * posted when the request is received and edited in place at every state; a new message for BLOCKED,
 * each end state and a failure; notices in the thread, or privately in the person's 1:1 chat with the
 * bot; approval questions with **Approve** and **Reject**. Teams has no reactions a bot can add, so an
 * accepted follow-up owes nothing. Posts go to the service URL the conversation last came from.
 *
 * The Bot Connector takes no idempotency key and a bot cannot read a conversation back: a post whose
 * answer was lost (a crash right after it, a 502 after it landed) can show twice. Every edit is exact.
 */
import type { Logger } from '../core/ports/logger.js';
import { triggerKeyOfReceivedKey, type OutboxMessage } from '../core/ports/messages.js';
import { NotifierError, unknownMessageKind, type Delivery, type Notifier } from '../core/ports/notifier.js';
import type { SettingRepository } from '../core/ports/store.js';
import { partsOf } from '../core/outbox/notice-parts.js';
import { withPeopleInWords, type DescribePeople } from '../surface-kit/people-in-words.js';
import { announceCard, approvalCard, CARD_CONTENT_TYPE, noticeCard, statusCard, type AdaptiveCard, type CardStage } from './cards.js';
import type { ConnectorClient } from './connector-client.js';
import { parseTeamsPlace, threadPlace } from './places.js';
import type { PlaceMemory } from './place-memory.js';
import { personalChatSetting, userIdSetting } from './setting-names.js';
import { renderText } from '../core/outbox/render-text.js';

/** What a delivered `received` row reports: where the status card is. */
export interface CardRef {
  /** The conversation the card was posted to (where it is edited). */
  conversationId: string;
  activityId: string;
  /** The thread a card posted at a bare channel started (where the run's messages go); absent: the conversation itself. */
  threadId?: string;
  /** Where the run was asked for, when elsewhere (a Linear issue): every edit shows it. */
  about?: string;
}

/** A card posted at a bare channel started a thread: its place, and the trigger whose card it is. */
export interface ThreadStarted {
  thread: string;
  triggerKey: string;
}

export interface TeamsNotifierDeps {
  client: ConnectorClient;
  places: PlaceMemory;
  settings: SettingRepository;
  botId: string;
  tenantId: string;
  people: DescribePeople;
  onThreadStarted?: (started: ThreadStarted) => Promise<void>;
  logger?: Logger;
}

const activityOf = (card: AdaptiveCard, summary: string): Record<string, unknown> => ({
  type: 'message',
  summary: summary.slice(0, 200),
  attachments: [{ contentType: CARD_CONTENT_TYPE, content: card }],
});

export class TeamsNotifier implements Notifier {
  readonly platform = 'teams';

  constructor(private readonly deps: TeamsNotifierDeps) {}

  async deliver(delivery: Delivery): Promise<unknown> {
    const message = withPeopleInWords(delivery.message, this.deps.people);
    switch (message.kind) {
      case 'received':
        return this.received(delivery, message);
      case 'status':
        return this.edit(delivery, message.receivedKey, message.run.title, { kind: 'run', run: message.run }, message);
      case 'stopping':
        return this.edit(
          delivery,
          message.receivedKey,
          message.run.title,
          { kind: 'stopping', run: message.run, ...(message.requestedBy !== undefined && { requestedBy: message.requestedBy }) },
          message,
        );
      case 'announce': {
        const received = await this.receivedOf(delivery, message.receivedKey);
        return this.post(delivery, threadOf(received), announceCard(message.run, message.cancelledBy), renderText(message));
      }
      case 'failed': {
        const received = await this.receivedOf(delivery, message.receivedKey);
        const posted = await this.post(
          delivery,
          threadOf(received),
          noticeCard([`❌ Could not start “${message.title}”: ${message.reason}`]),
          renderText(message),
        );
        if (received)
          await this.update(
            received,
            statusCard(message.title, { kind: 'start_failed', title: message.title, reason: message.reason, ...(received.about && { about: received.about }) }),
            renderText(message),
          );
        return posted;
      }
      case 'followup_accepted':
      case 'seen':
      case 'session':
        return { skipped: 'no reactions or sessions in Teams' };
      case 'notice': {
        if (message.privateTo) return this.privately(message.privateTo, noticeCard(partsOf(message)), message.text);
        const received = message.receivedKey !== undefined ? await this.receivedOf(delivery, message.receivedKey) : undefined;
        return this.post(delivery, threadOf(received), noticeCard(partsOf(message)), message.text);
      }
      case 'approval':
        return this.approval(delivery, message);
      default:
        throw unknownMessageKind(message);
    }
  }

  /** The status card, posted at once: at a bare channel it starts the run's thread. */
  private async received(delivery: Delivery, message: Extract<OutboxMessage, { kind: 'received' }>): Promise<CardRef> {
    const about = message.ticket
      ? `Asked for on ${message.ticket.from ?? 'a tracker'}: ${message.ticket.ref ?? message.ticket.url ?? ''}${message.requester ? ` by ${message.requester}` : ''}`
      : undefined;
    const card = statusCard(message.title, {
      kind: 'received',
      ...(message.requester !== undefined && !about && { requester: message.requester }),
      ...(about && { about }),
    });
    const posted = await this.post(delivery, undefined, card, renderText(message));
    const place = parseTeamsPlace(delivery.destination);
    if (place?.kind === 'chat') await this.typing(posted.conversationId);
    const triggerKey = triggerKeyOfReceivedKey(delivery.key, delivery.destination);
    if (place?.kind === 'channel') {
      if (triggerKey !== undefined) await this.deps.onThreadStarted?.({ thread: threadPlace(place.channelId, posted.activityId), triggerKey });
      return { ...posted, threadId: `${place.channelId};messageid=${posted.activityId}`, ...(about && { about }) };
    }
    return { ...posted, ...(about && { about }) };
  }

  /** "…is typing" while the run is being started: Teams shows it in chats (not channels) for a few seconds. Best effort. */
  private async typing(conversationId: string): Promise<void> {
    try {
      await this.deps.client.post(await this.deps.places.serviceUrlOf(conversationId), conversationId, { type: 'typing' });
    } catch (error) {
      this.deps.logger?.debug({ err: error instanceof Error ? error.message : 'unknown' }, 'Teams: the typing indicator was not shown');
    }
  }

  /** Edits the status card; when there is none to edit (its post never got through), posts one. */
  private async edit(delivery: Delivery, receivedKey: string, title: string, stage: CardStage, message: OutboxMessage): Promise<CardRef> {
    const received = await this.receivedOf(delivery, receivedKey);
    const card = statusCard(title, received?.about ? { ...stage, about: received.about } : stage);
    if (received) {
      await this.update(received, card, renderText(message));
      return received;
    }
    return this.post(delivery, undefined, card, renderText(message));
  }

  private async approval(delivery: Delivery, message: Extract<OutboxMessage, { kind: 'approval' }>): Promise<unknown> {
    const received = message.receivedKey !== undefined ? await this.receivedOf(delivery, message.receivedKey) : undefined;
    if (message.outcome) {
      if (!received) return { skipped: 'no status card' };
      await this.update(
        received,
        statusCard(message.title, { kind: 'not_approved', outcome: message.outcome, ...(received.about && { about: received.about }) }),
        renderText(message),
      );
      return { edited: true };
    }
    const question = approvalCard({
      approvalId: message.approvalId,
      title: message.title,
      route: message.route,
      expiresAt: message.expiresAt,
      ...(message.requester !== undefined && { requester: message.requester }),
    });
    const posted = await this.post(delivery, threadOf(received), question, renderText(message));
    if (received)
      await this.update(
        received,
        statusCard(message.title, { kind: 'awaiting_approval', ...(received.about && { about: received.about }) }),
        renderText(message),
      );
    return posted;
  }

  /** Posts into the destination's conversation (or `conversationId`, a thread a card started). */
  private async post(delivery: Delivery, conversationId: string | undefined, card: AdaptiveCard, summary: string): Promise<CardRef> {
    const conversation = conversationId ?? (await this.conversationOf(delivery.destination));
    const serviceUrl = await this.deps.places.serviceUrlOf(conversation);
    const activityId = await this.deps.client.post(serviceUrl, conversation, activityOf(card, summary));
    return { conversationId: conversation, activityId };
  }

  private async update(ref: CardRef, card: AdaptiveCard, summary: string): Promise<void> {
    const serviceUrl = await this.deps.places.serviceUrlOf(ref.conversationId);
    await this.deps.client.update(serviceUrl, ref.conversationId, ref.activityId, activityOf(card, summary));
  }

  /** A note only `aadObjectId` sees: in their 1:1 chat with the bot. */
  private async privately(aadObjectId: string, card: AdaptiveCard, summary: string): Promise<CardRef> {
    const conversation = await this.personalChat(aadObjectId.replace(/^teams:/, '').toLowerCase());
    const activityId = await this.deps.client.post(await this.deps.places.serviceUrlOf(conversation), conversation, activityOf(card, summary));
    return { conversationId: conversation, activityId };
  }

  /** The conversation a destination names: a thread or chat as it is, a person's 1:1 chat (opened when first needed). */
  private async conversationOf(destination: string): Promise<string> {
    const place = parseTeamsPlace(destination);
    if (!place) throw new NotifierError(`not a Teams destination: ${destination.slice(0, 100)}`, { code: 'bad_destination', retryable: false });
    return place.kind === 'person' ? this.personalChat(place.aadObjectId) : place.conversationId;
  }

  private async personalChat(aadObjectId: string): Promise<string> {
    const known = await this.deps.settings.get(personalChatSetting(aadObjectId));
    if (known) return known;
    const userId = (await this.deps.settings.get(userIdSetting(aadObjectId))) ?? aadObjectId;
    const serviceUrl = await this.deps.places.serviceUrlOf(`person:${aadObjectId}`);
    const chat = await this.deps.client.openChat(serviceUrl, { botId: this.deps.botId, userId, tenantId: this.deps.tenantId });
    await this.deps.settings.set(personalChatSetting(aadObjectId), chat);
    return chat;
  }

  private async receivedOf(delivery: Delivery, key: string): Promise<CardRef | undefined> {
    const result = (await delivery.resultOf(key)) as Partial<CardRef> | undefined;
    return typeof result?.conversationId === 'string' && typeof result.activityId === 'string'
      ? {
          conversationId: result.conversationId,
          activityId: result.activityId,
          ...(typeof result.threadId === 'string' && { threadId: result.threadId }),
          ...(typeof result.about === 'string' && { about: result.about }),
        }
      : undefined;
  }
}

/** Where a run's new messages go: the thread its card started, else the card's conversation; undefined: the destination's. */
function threadOf(received: CardRef | undefined): string | undefined {
  return received ? (received.threadId ?? received.conversationId) : undefined;
}
