/**
 * What the fake Microsoft Teams (`teams-api.ts`) offers a test: the requests it recorded, the faults it
 * can be told to make, the tokens it signs and its handle.
 */
import type { FakeTeamsMember, PostedActivity } from './teams-connector.js';

/** One request the fake received. */
export interface TeamsCall {
  seq: number;
  /** What was asked: the OpenID metadata, its keys, a token, or the connector API. */
  kind: 'metadata' | 'keys' | 'token' | 'connector' | 'unknown';
  method: string;
  /** The raw path, e.g. `/amer/v3/conversations/19%3A…/activities`. */
  path: string;
  /** For a connector call: the path after the service URL, decoded, e.g. `/v3/conversations/19:…/activities`. */
  operation?: string;
  /** For a connector call: the service URL it went to. */
  serviceUrl?: string;
  /** The JSON body, or the form fields of a token request (`client_secret` masked). */
  body: unknown;
  status: number;
}

/** A failure the next matching connector calls answer with. */
export interface TeamsFailure {
  status: 429 | 412 | 500 | 502 | 503 | 504;
  /** How many calls fail (default 1). */
  count?: number;
  /** Seconds for Retry-After. */
  retryAfter?: number;
  /** Only calls of this method. */
  method?: string;
  /** Only calls whose operation matches (`*` is one segment), e.g. `/v3/conversations/*\/activities`. */
  operation?: string;
  /** Do the call first, then answer the failure (a post that landed but whose answer was lost). */
  land?: boolean;
}

/** How `signActivityToken` makes its token; each option makes it wrong in one way. */
export interface ActivityTokenOptions {
  /** The `serviceurl` claim; null leaves it out. */
  serviceUrl: string | null;
  /** `aud` (default the bot's client id). */
  audience?: string;
  /** `iss` (default `https://api.botframework.com`). */
  issuer?: string;
  /** Seconds it lives from the fake's now (default 3600); negative: expired that long ago. */
  expiresIn?: number;
  /** The header's kid (default the current key's); a kid of a key no longer published is signed by that key if the fake still has it. */
  kid?: string;
  /** Signed by a key the metadata never published (a forgery) while naming the published kid. */
  unpublishedKey?: boolean;
}

/** What the bot answered to `sendActivity`. */
export interface BotAnswer {
  status: number;
  text: string;
  /** The body parsed as JSON, when it is. */
  json: unknown;
}

export interface FakeTeams {
  /** The server's base, e.g. `http://127.0.0.1:PORT`. */
  url: string;
  /** TEAMS_OPENID_METADATA_URL. */
  openIdMetadataUrl: string;
  /** TEAMS_LOGIN_URL (the token endpoint is `{loginUrl}/{tenant}/oauth2/v2.0/token`). */
  loginUrl: string;
  /** The default region's service URL, with the trailing slash Teams' have: `http://127.0.0.1:PORT/amer/`. */
  serviceUrl: string;
  /** Another region's service URL (any first path segment serves the same connector). */
  serviceUrlOf(region: string): string;
  clientId: string;
  tenantId: string;
  /** The bot's id in conversations: `28:<client id>`. */
  botId: string;
  calls: TeamsCall[];
  /** Connector calls whose method and operation match (`*` matches one segment). */
  connectorCalls(method?: string, operation?: string): TeamsCall[];
  /** Token requests so far (each a call of kind `token`, answered or not). */
  tokenRequests(): TeamsCall[];
  /** Every activity the bot posted, in order, with its versions. */
  posted: PostedActivity[];
  /** The 1:1 chats the bot opened (`POST /v3/conversations`), in order. */
  chats: string[];
  addMember(member: FakeTeamsMember, conversations?: string[]): void;
  /** The JWT the Bot Connector would put on an activity for this bot. */
  signActivityToken(options: ActivityTokenOptions): Promise<string>;
  /** POSTs an activity to the bot with a token for its `serviceUrl` (or `token`'s options, or a raw `authorization`; null sends none). */
  sendActivity(
    botUrl: string,
    activity: unknown,
    options?: { token?: Partial<ActivityTokenOptions>; authorization?: string | null; rawBody?: string | Buffer },
  ): Promise<BotAnswer>;
  /** The kid tokens are signed with now. */
  currentKid(): string;
  /** Publishes a new key and signs with it from now on; the old one stays published only with `keepPrevious`. */
  rotateKey(options?: { keepPrevious?: boolean }): Promise<string>;
  failNext(failure: TeamsFailure): void;
  /** Called with each connector call once it is done, before its answer is sent; its promise is awaited. */
  onAnswer(hook: ((call: TeamsCall) => void | Promise<void>) | undefined): void;
  close(): Promise<void>;
}
