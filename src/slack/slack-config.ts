import type { Followups } from './normalise.js';
import type { ChannelTrigger } from './start-triggers.js';

/** HTTP (events arrive at our route, signed) or Socket Mode (a WebSocket Slack opens to us, no public URL). */
export type SlackTransport = { kind: 'http'; signingSecret: string } | { kind: 'socket'; appToken: string };

/** What the Slack integration needs from the validated config. */
export interface SlackConfig {
  botToken: string;
  transport: SlackTransport;
  apiUrl: string;
  followups: Followups;
  /** `slack.context`: how much of the thread goes with a start or a follow-up. Default 20 messages / 8,000 characters. */
  context?: { messages: number; characters: number };
  /** `console.admins`: may cancel any run with `/agent cancel` from anywhere. */
  admins: string[];
  /** Where `/agent connect` sends people to connect their key (the console's key page); undefined without PUBLIC_URL. */
  keyPageUrl: string | undefined;
  /** `slack.channels`: channel ID (or `*`) → route; the Home tab's Start a run offers one choice per entry. */
  channels: Readonly<Record<string, { config?: { name?: unknown } }>>;
  /** `slack.unfurl_domains`: session-link domains whose pasted links unfurl. */
  unfurlDomains: readonly string[];
  /** `slack.channels.<id>.trigger`: channel ID (or `*`) → keywords and emoji that start runs without a mention. */
  triggers?: Readonly<Record<string, ChannelTrigger>>;
  /** `people.attribution`: the Home tab says whether the person's key is connected unless it is `service`. */
  attribution?: string;
}
