import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import { messageKey } from '../../src/slack/normalise.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { appMention, eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS } from '../fixtures/slack/ids.js';
import { startSlackBridge, type SlackBridge } from '../helpers/slack-bridge.js';

/*
 * Socket Mode against a local WebSocket server playing Slack: the fake Web API hands out its URL
 * from apps.connections.open, the server says hello and sends an Events API envelope; the service
 * must store the trigger before it acknowledges the envelope.
 */

const APP_TOKEN = 'xapp-1-A0FAKEAPP-socket-test-token';
const BOT_TOKEN = 'xoxb-0000-1111-socket-test-token';
let wss: WebSocketServer;
let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator, service: RunningService;
const acks: Array<{ envelope_id: string; storedBeforeAck: boolean }> = [];
let socket: Promise<WebSocket>;

beforeAll(async () => {
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  socket = new Promise((resolve) =>
    wss.on('connection', (ws) => {
      ws.send(JSON.stringify({ type: 'hello', num_connections: 1, connection_info: { app_id: SLACK_IDS.app }, debug_info: { host: 'test' } }));
      resolve(ws);
    }),
  );
  bridge = await startSlackBridge({
    botToken: BOT_TOKEN,
    fake: { appToken: APP_TOKEN, socketUrl: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/` },
  });
  ({ slack, emulator, service } = bridge);
});
afterAll(async () => {
  await bridge?.stop();
  await new Promise<void>((resolve) => wss.close(() => resolve()));
});

describe('Slack over Socket Mode', () => {
  it('connects with the app token, stores a mention before acknowledging it, and starts the run', async () => {
    const ws = await socket;
    expect(slack.callsTo('apps.connections.open')).toHaveLength(1);
    const mention = appMention({ text: `<@${SLACK_IDS.botUser}> tidy the README` });
    const key = messageKey(mention['channel'] as string, mention['ts'] as string);
    const acked = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        const message = JSON.parse(new TextDecoder().decode(Array.isArray(data) ? Buffer.concat(data) : data)) as { envelope_id?: string };
        if (message.envelope_id !== 'env-1') return;
        // Checked the moment the acknowledgement arrives: the trigger must already be stored.
        void service.store.triggers.getByKey(key).then((trigger) => {
          acks.push({ envelope_id: message.envelope_id!, storedBeforeAck: trigger !== undefined });
          resolve();
        });
      }),
    );
    ws.send(
      JSON.stringify({
        envelope_id: 'env-1',
        type: 'events_api',
        accepts_response_payload: false,
        retry_attempt: 0,
        retry_reason: '',
        payload: eventCallback(mention),
      }),
    );
    await acked;
    expect(acks).toEqual([{ envelope_id: 'env-1', storedBeforeAck: true }]);

    const deadline = Date.now() + 10_000;
    while (!emulator.engine.list({}).runs.some((run) => run.prompt?.startsWith('tidy the README'))) {
      if (Date.now() > deadline) throw new Error('no run');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await slack.waitForCall('reactions.add', (call) => call.args['timestamp'] === mention['ts']);
  });

  it('answers /slack/events with 404 and says why', async () => {
    const response = await fetch(`${service.url}/slack/events`, { method: 'POST' });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { message: string }).message).toContain('Socket Mode');
  });
});
