/**
 * The shapes of the Slack ids a run's places are made of (`slack:<channel>:<ts>`). A value of another
 * shape makes a place no message can reach: the notifiers read a destination only when its channel
 * and ts have these shapes.
 */

/** A conversation id: C (channel), G (private channel, group DM), D (direct message), then uppercase letters and digits. */
export const CONVERSATION_ID = /^[CDG][A-Z0-9]{1,40}$/;

/** A message timestamp: seconds, a dot, a sequence number (`1710000000.000100`). */
export const MESSAGE_TS = /^\d{1,12}\.\d{1,12}$/;

/** True when `channel` is shaped as a Slack conversation id. */
export const isConversationId = (channel: string): boolean => CONVERSATION_ID.test(channel);

/** True when `ts` is shaped as a Slack message timestamp. */
export const isMessageTs = (ts: string): boolean => MESSAGE_TS.test(ts);
