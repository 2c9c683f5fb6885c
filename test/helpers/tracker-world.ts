import { afterAll, afterEach, beforeAll } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { startFakeLinearApi, type FakeLinearApi } from '../fakes/linear-api.js';
import { LINEAR_IDS } from '../fixtures/linear/index.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { LINEAR_KEY } from '../linear/linear-harness.js';
import { startSlackBridge, type SlackBridge, type SlackBridgeOptions } from './slack-bridge.js';

/** What a tracker's end-to-end file works against; filled in by the beforeAll {@link useTrackerWorld} registers. */
export interface TrackerWorld<Fake, Bridge> {
  fake: Fake;
  emulator: RunningEmulator;
  /** The running bridge; a test that restarts it puts the new one here, so that afterAll stops that one. */
  bridge: Bridge;
}

/**
 * Registers the hooks of a tracker's end-to-end file: before all, its fake API (`startFake`), the
 * manual run-API emulator under `apiKey` and the bridge (`startBridge`, given both); after all, the
 * three stopped; with `resetEach`, the emulator forgets its runs after each test.
 */
export function useTrackerWorld<Fake extends { close(): Promise<void> }, Bridge extends { service: RunningService }>(options: {
  apiKey: string;
  startFake: () => Promise<Fake>;
  startBridge: (fake: Fake, emulator: { baseUrl: string; apiKey: string }) => Promise<Bridge>;
  resetEach?: boolean;
}): TrackerWorld<Fake, Bridge> {
  const world = {} as TrackerWorld<Fake, Bridge>;
  beforeAll(async () => {
    world.fake = await options.startFake();
    world.emulator = await startEmulator({ apiKey: options.apiKey, port: 0, manual: true });
    world.bridge = await options.startBridge(world.fake, { baseUrl: world.emulator.baseUrl, apiKey: options.apiKey });
  });
  afterAll(async () => {
    await world.bridge.service.stop();
    await world.emulator.close();
    await world.fake.close();
  });
  if (options.resetEach) {
    afterEach(() => {
      world.emulator.engine.reset();
    });
  }
  return world;
}

/** A tracker's fake beside a Slack bridge; filled in by the beforeAll {@link useSlackTrackerWorld} registers. */
export interface SlackTrackerWorld<Fake> {
  fake: Fake;
  bridge: SlackBridge;
}

/**
 * Registers the hooks of a file where a tracker works beside Slack: before all, the tracker's fake
 * (`startFake`) and a Slack bridge configured with it (`bridgeOptions(fake)`); after all, both
 * stopped; after each test, the emulator forgets its runs.
 */
export function useSlackTrackerWorld<Fake extends { close(): Promise<void> }>(
  startFake: () => Promise<Fake>,
  bridgeOptions: (fake: Fake) => SlackBridgeOptions,
): SlackTrackerWorld<Fake> {
  const world = {} as SlackTrackerWorld<Fake>;
  beforeAll(async () => {
    world.fake = await startFake();
    world.bridge = await startSlackBridge(bridgeOptions(world.fake));
  });
  afterAll(async () => {
    await world.bridge?.stop();
    await world.fake?.close();
  });
  afterEach(() => {
    world.bridge.emulator.engine.reset();
  });
  return world;
}

/**
 * {@link useSlackTrackerWorld} for Linear beside Slack: the fake Linear API (labels `agent` and `bug`)
 * and a Slack bridge that knows SLACK_IDS.channel as #dev; `options` add the config file and more.
 */
export function useSlackLinearWorld(options: Omit<SlackBridgeOptions, 'linear' | 'channels' | 'describe'>): SlackTrackerWorld<FakeLinearApi> {
  const { agent, bug } = LINEAR_IDS.labels;
  return useSlackTrackerWorld(
    () => startFakeLinearApi({ authorization: LINEAR_KEY, labels: [agent, bug] }),
    (linear) => ({
      ...options,
      channels: { [SLACK_IDS.channel]: 'dev' },
      linear,
      describe: () => `linear comments: ${linear.comments().length}`,
    }),
  );
}
