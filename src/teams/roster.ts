/**
 * The people Teams told the bridge about: each requester's email and name as the conversation's roster
 * gives them (`GET …/conversations/{id}/members/{userId}`), asked once per person in the intake worker,
 * never at the edge. A person of another surface (a Linear user) is linked to a Teams person by that
 * email, so their personal key applies there too (`people/identity.ts`). The connector cannot search a
 * tenant by email: only people who have written to the bot can be found.
 */
import type { Logger } from '../core/ports/logger.js';
import type { SettingRepository, StoredTrigger } from '../core/ports/store.js';
import type { ConnectorClient } from './connector-client.js';
import type { TeamsReference } from './normalise.js';
import type { PlaceMemory } from './place-memory.js';
import { emailSetting, rosterSetting } from './setting-names.js';

export class Roster {
  constructor(private readonly deps: { client: ConnectorClient; settings: SettingRepository; places: PlaceMemory; logger: Logger }) {}

  /** Reads the requester of a Teams trigger from its conversation's roster, once; best effort. */
  async learn(trigger: StoredTrigger): Promise<void> {
    const requester = trigger.payload.requester;
    const reference = trigger.payload.reference as Partial<TeamsReference> | undefined;
    if (trigger.source !== 'teams' || !requester || typeof reference?.userId !== 'string' || typeof reference.conversationId !== 'string') return;
    if ((await this.deps.settings.get(rosterSetting(requester.id))) !== undefined) return;
    try {
      const serviceUrl = await this.deps.places.serviceUrlOf(reference.conversationId);
      const member = await this.deps.client.member(serviceUrl, reference.conversationId, reference.userId);
      const email = (member?.email ?? member?.userPrincipalName)?.trim().toLowerCase();
      await this.deps.settings.set(rosterSetting(requester.id), JSON.stringify({ email: email ?? null, name: member?.name ?? null }));
      if (email) await this.deps.settings.set(emailSetting(email), requester.id);
    } catch (error) {
      this.deps.logger.debug(
        { err: error instanceof Error ? error.message : 'unknown', person: requester.id },
        'Teams: could not read a requester from the roster',
      );
    }
  }

  /** The Teams person (Entra object id) with this email, among those the roster told of. */
  async userByEmail(email: string): Promise<string | undefined> {
    return this.deps.settings.get(emailSetting(email.trim()));
  }

  /** A person's name as the roster gave it. */
  async displayName(aadObjectId: string): Promise<string | undefined> {
    const kept = await this.deps.settings.get(rosterSetting(aadObjectId.toLowerCase()));
    if (!kept) return undefined;
    try {
      const name = (JSON.parse(kept) as { name?: unknown }).name;
      return typeof name === 'string' ? name : undefined;
    } catch {
      return undefined;
    }
  }
}
