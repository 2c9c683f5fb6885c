/**
 * What the edge remembers of the places and people it heard from (`setting-names.ts`), written after
 * an activity is verified and only when it changed: a process keeps what it last wrote, so a busy
 * conversation costs no write per message.
 */
import type { SettingRepository } from '../core/ports/store.js';
import { conversationBase } from './places.js';
import { serviceUrlSetting, TENANT_SERVICE_URL, userIdSetting, personalChatSetting } from './setting-names.js';

/** Microsoft's global service URL, for a place no activity came from yet. */
export const GLOBAL_SERVICE_URL = 'https://smba.trafficmanager.net/teams/';
const REMEMBERED = 5_000;

export class PlaceMemory {
  private readonly written = new Map<string, string>();

  constructor(private readonly settings: SettingRepository) {}

  /** Keeps the conversation's service URL, the sender's Teams user id and, for a 1:1 chat, that it is theirs. */
  async heard(activity: { serviceUrl: string; conversationId: string; personal: boolean; user?: { id: string; aadObjectId: string } }): Promise<void> {
    await this.keep(serviceUrlSetting(conversationBase(activity.conversationId)), activity.serviceUrl);
    await this.keep(TENANT_SERVICE_URL, activity.serviceUrl);
    if (activity.user) {
      await this.keep(userIdSetting(activity.user.aadObjectId), activity.user.id);
      if (activity.personal) await this.keep(personalChatSetting(activity.user.aadObjectId), activity.conversationId);
    }
  }

  /** Where to post into a conversation: its own service URL, else the tenant's, else Microsoft's global one. */
  async serviceUrlOf(conversationId: string): Promise<string> {
    return (
      (await this.settings.get(serviceUrlSetting(conversationBase(conversationId)))) ?? (await this.settings.get(TENANT_SERVICE_URL)) ?? GLOBAL_SERVICE_URL
    );
  }

  private async keep(name: string, value: string): Promise<void> {
    if (this.written.get(name) === value) return;
    await this.settings.set(name, value);
    if (this.written.size >= REMEMBERED) this.written.clear();
    this.written.set(name, value);
  }
}
