/**
 * The Slack end-to-end world, Slack's counterpart of `startLinearBridge` (test/linear/linear-harness.ts):
 * the real service (the real Bolt on loopback, a real SQLite file) with the fake Slack Web API and the
 * run-API emulator (manual: runs move only when a test drives them), and helpers to post correctly
 * signed requests and to wait on what Slack was told.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { referenceLine } from '../../src/core/ports/triggers.js';
import type { RunItem } from '../../src/core/ports/agent-runs.js';
import type { Clock } from '../../src/core/ports/clock.js';
import type { Logger } from '../../src/core/ports/logger.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService, ServiceOptions } from '../../src/main.js';
import { messageKey } from '../../src/slack/normalise.js';
import { startFakeSlackApi, type FakeSlackApi, type FakeSlackOptions, type FakeSlackUser, type SlackCall } from '../fakes/slack-api.js';
import type { FakeLinearApi } from '../fakes/linear-api.js';
import { freePort } from '../fakes/oidc-provider.js';
import { postSlackEvent, postSlackForm, postSlackInteraction, type SlackPostOptions } from '../fakes/slack-signing.js';
import { linearDelivery, type LinearEnvelopeFixture } from '../fixtures/linear/index.js';
import { appMention, eventCallback, type SlackEvent } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { slashCommand } from '../fixtures/slack/interactions.js';
import { startBridge } from './start-bridge.js';
import { LINEAR_KEY, LINEAR_SECRET } from '../linear/linear-harness.js';
import { until as waitFor } from './until.js';

export const SLACK_SECRET = 'slack-bridge-signing-secret-0123456789';
export const SLACK_BOT_TOKEN = 'xoxb-0000-1111-slack-bridge-token';
export const AGENT_API_KEY = 'slack-bridge-run-api-key';

/** The fakes around the service: what Slack and the run API are in these tests. */
export interface SlackFakes {
  slack: FakeSlackApi;
  emulator: RunningEmulator;
}

export interface SlackFakesOptions {
  /** The bot token the fake accepts (default SLACK_BOT_TOKEN). */
  botToken?: string;
  /** The run-API key the emulator accepts (default AGENT_API_KEY). */
  apiKey?: string;
  /** More of the fake Slack's options: team id, app token and socket URL (Socket Mode), … */
  fake?: Omit<FakeSlackOptions, 'token'>;
  /** More of the emulator's options (visibility, …); it is always manual. */
  emulatorOptions?: Partial<Omit<EmulatorOptions, 'apiKey' | 'manual'>>;
  /** People the fake Slack knows, by user id. */
  users?: Record<string, FakeSlackUser>;
  /** Channels the fake Slack knows: id → name. */
  channels?: Record<string, string>;
}

/** Starts the fake Slack Web API (with its people and channels) and a manual emulator. */
export async function startSlackFakes(options: SlackFakesOptions = {}): Promise<SlackFakes> {
  const slack = await startFakeSlackApi({ token: options.botToken ?? SLACK_BOT_TOKEN, ...options.fake });
  for (const [id, name] of Object.entries(options.channels ?? {})) slack.setChannel(id, { name });
  for (const [id, profile] of Object.entries(options.users ?? {})) slack.setUser(id, profile);
  const emulator = await startEmulator({ apiKey: options.apiKey ?? AGENT_API_KEY, port: 0, manual: true, ...options.emulatorOptions });
  return { slack, emulator };
}

export interface SlackBridgeOptions extends SlackFakesOptions {
  /** Contents of agent-bridge.yml, if any. */
  yaml?: string;
  /** More environment: console tokens, AGENT_BRIDGE_SECRET, PUBLIC_URL, … */
  env?: Record<string, string>;
  /** Working directory (reuse one to restart on the same database); default a fresh temp folder. */
  cwd?: string;
  logger?: Logger;
  overrides?: ServiceOptions['overrides'];
  /** The signing secret (default SLACK_SECRET). Not used in Socket Mode (`fake.appToken` set). */
  secret?: string;
  /** Fakes already running (a restart, replicas on one database): the bridge does not close them. */
  fakes?: SlackFakes;
  /** The fake Linear GraphQL API: Linear is configured too, and `deliverLinear` posts to it. */
  linear?: FakeLinearApi;
  /**
   * Sign in with Slack through this OpenID provider: the service listens on a known free port, its
   * PUBLIC_URL, so that the provider's redirects come back to it.
   */
  signIn?: { issuer: string; clientId: string; clientSecret: string };
  /** More for a timed-out wait to say, after the Slack calls made so far. */
  describe?: () => string;
  /** The service's clock (default the system's): a test clock drives the sweeps and polls only when moved. */
  clock?: Clock;
}

/** What the end-to-end tests talk to: the service and its fakes, and signed ways in. */
export interface SlackBridge extends SlackFakes {
  service: RunningService;
  cwd: string;
  /** The service's `/slack/events` URL. */
  events: string;
  secret: string;
  /** POSTs `event` signed, wrapped in its `event_callback`. */
  post(event: SlackEvent, options?: SlackPostOptions): Promise<Response>;
  /**
   * A mention of the bot (`<@bot> text`) in SLACK_IDS.channel by SLACK_IDS.user unless `fields` say
   * otherwise; checks it is answered 200 and resolves to its ts.
   */
  mention(text: string, fields?: Record<string, unknown>): Promise<string>;
  /** POSTs the slash command `/agent` with `fields` (over slashCommand's), signed. */
  command(fields: Record<string, string>, options?: SlackPostOptions): Promise<Response>;
  /** POSTs an interactivity payload (a click, a shortcut, a modal submission), signed. */
  interact(payload: object, options?: SlackPostOptions): Promise<Response>;
  /** POSTs a Linear delivery, signed; resolves to the status answered (needs `linear`). */
  deliverLinear(payload: LinearEnvelopeFixture): Promise<number>;
  /** Polls `find` until it is truthy (default 10 s); a timeout names the Slack calls made so far. */
  until<T>(find: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs?: number): Promise<T>;
  /** The run a message (`channel`, `ts`) started: its prompt carries the message's reference line. */
  runFor(channel: string, ts: string): RunItem | undefined;
  /** Every `chat.postMessage` in the thread `threadTs`. */
  threadPosts(threadTs: string): SlackCall[];
  /** Every `chat.update` of the message `ts`. */
  updatesOf(ts: string): SlackCall[];
  /** How many triggers the store holds, in any state. */
  triggerCount(): Promise<number>;
  /** Stops the service and starts it again on the same folder (database) and fakes: the bridge to use from then on. */
  restart(): Promise<SlackBridge>;
  /** Stops the service, then the fakes it started. */
  stop(): Promise<void>;
}

/**
 * The real service in this process with Slack over HTTP (or Socket Mode when `fake.appToken` is set)
 * against the fake Web API, and the emulator as its run API.
 */
export async function startSlackBridge(options: SlackBridgeOptions = {}): Promise<SlackBridge> {
  return serve(options, options.fakes ?? (await startSlackFakes(options)), options.fakes === undefined);
}

async function serve(options: SlackBridgeOptions, fakes: SlackFakes, owned: boolean): Promise<SlackBridge> {
  const { slack, emulator } = fakes;
  const secret = options.secret ?? SLACK_SECRET;
  const socketMode = options.fake?.appToken !== undefined;
  const port = options.signIn && (await freePort());
  const { service, cwd } = await startBridge({
    agentApi: { baseUrl: emulator.baseUrl, apiKey: options.apiKey ?? AGENT_API_KEY },
    env: {
      SLACK_BOT_TOKEN: options.botToken ?? SLACK_BOT_TOKEN,
      ...(socketMode ? { SLACK_APP_TOKEN: options.fake?.appToken ?? '' } : { SLACK_SIGNING_SECRET: secret }),
      SLACK_API_URL: slack.url,
      ...(options.signIn && {
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        SLACK_CLIENT_ID: options.signIn.clientId,
        SLACK_CLIENT_SECRET: options.signIn.clientSecret,
        SLACK_OIDC_ISSUER: options.signIn.issuer,
      }),
      ...(options.linear && { LINEAR_API_KEY: LINEAR_KEY, LINEAR_WEBHOOK_SECRET: LINEAR_SECRET, LINEAR_API_URL: options.linear.url }),
      ...options.env,
    },
    ...(options.yaml !== undefined && { yaml: options.yaml }),
    ...(options.cwd !== undefined && { cwd: options.cwd }),
    ...(options.logger && { logger: options.logger }),
    ...(options.overrides && { overrides: options.overrides }),
    ...(options.clock && { clock: options.clock }),
  });
  const events = `${service.url}/slack/events`;
  const post = (event: SlackEvent, postOptions?: SlackPostOptions) => postSlackEvent(events, secret, eventCallback(event), postOptions);
  return {
    slack,
    emulator,
    service,
    cwd,
    events,
    secret,
    post,
    mention: async (text, fields = {}) => {
      const event = appMention({ channel: SLACK_IDS.channel, text: `<@${SLACK_IDS.botUser}> ${text}`, ...fields });
      expect((await post(event)).status).toBe(200);
      return event['ts'] as string;
    },
    command: (fields, postOptions) => postSlackForm(events, secret, slashCommand(fields), postOptions),
    interact: (payload, postOptions) => postSlackInteraction(events, secret, payload, postOptions),
    deliverLinear: async (payload) => {
      const { body, headers } = linearDelivery(LINEAR_SECRET, payload, {});
      return (await fetch(`${service.url}/linear/webhook`, { method: 'POST', headers, body })).status;
    },
    until: (find, what, timeoutMs = 10_000) =>
      waitFor(
        find,
        what,
        timeoutMs,
        () => `slack calls: ${slack.calls.map((call) => call.method).join(', ')}${options.describe ? `; ${options.describe()}` : ''}`,
      ),
    runFor: (channel, ts) => emulator.engine.list({}).runs.find((run) => run.prompt?.includes(referenceLine(messageKey(channel, ts)))),
    threadPosts: (threadTs) => slack.callsTo('chat.postMessage').filter((call) => call.args['thread_ts'] === threadTs),
    updatesOf: (ts) => slack.callsTo('chat.update').filter((call) => call.args['ts'] === ts),
    triggerCount: async () => Object.values(await service.store.triggers.countByState()).reduce((sum, count) => sum + count, 0),
    restart: async () => {
      await service.stop();
      return serve({ ...options, cwd }, fakes, owned);
    },
    stop: async () => {
      await service.stop();
      if (!owned) return;
      await emulator.close();
      await slack.close();
    },
  };
}

/** The text and blocks of a Slack call, as one string to search. */
export const callText = (call: { args: Record<string, unknown> }): string => JSON.stringify([call.args['text'], call.args['blocks']]);
/** The ts Slack answered a post with. */
export const tsOf = (call: { response?: unknown }): string => (call.response as { ts: string }).ts;

/**
 * Registers the hooks of a Slack end-to-end file: before all, {@link startSlackBridge} with `options`;
 * after all, the bridge stopped; with `resetEach`, the emulator forgets its runs after each test. A
 * test that restarts the bridge puts the new one in `world.bridge`, so that afterAll stops that one.
 */
export function useSlackBridge({ resetEach = false, ...options }: SlackBridgeOptions & { resetEach?: boolean }): { bridge: SlackBridge } {
  const world = {} as { bridge: SlackBridge };
  beforeAll(async () => {
    world.bridge = await startSlackBridge(options);
  });
  afterAll(() => world.bridge?.stop());
  if (resetEach) {
    afterEach(() => {
      world.bridge.emulator.engine.reset();
    });
  }
  return world;
}
