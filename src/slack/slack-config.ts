import type { Followups } from './normalise.js';

/** What the Slack integration needs from the validated config (HTTP mode). */
export interface SlackConfig {
  botToken: string;
  signingSecret: string;
  apiUrl: string;
  followups: Followups;
  allowedUsers: string[];
}
