/**
 * What Teams keeps in the store's settings (core/ports/setting-names.ts keeps the core's). Teams
 * answers through the service URL each activity brings (regional, and it may change), so the latest one
 * of each conversation is kept for posts made later (a run's end, hours on), and the latest of any as
 * the tenant's, for a place no activity came from yet (a companion channel, an approver's 1:1 chat).
 */

/** The service URL of a conversation (without its `;messageid=` part). */
export const serviceUrlSetting = (conversationBaseId: string) => `teams:service_url:${conversationBaseId}`;
/** The latest service URL of any activity: the tenant's. */
export const TENANT_SERVICE_URL = 'teams:service_url';
/** A person's Teams user id (`29:…`) by their Entra object id, to open their 1:1 chat with the bot. */
export const userIdSetting = (aadObjectId: string) => `teams:user_id:${aadObjectId}`;
/** A person's 1:1 chat with the bot, by their Entra object id, once known or created. */
export const personalChatSetting = (aadObjectId: string) => `teams:personal_chat:${aadObjectId}`;
/** A person's email as the roster gave it, by their Entra object id (JSON: `{email, name}`). */
export const rosterSetting = (aadObjectId: string) => `teams:roster:${aadObjectId}`;
/** The Entra object id of the person the roster gave this email (lower case). */
export const emailSetting = (email: string) => `teams:email:${email.toLowerCase()}`;
/** The latest messages of a conversation the bot heard (JSON), for a run's context. */
export const contextSetting = (conversationId: string) => `teams:context:${conversationId}`;
