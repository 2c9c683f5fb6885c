import { App, HTTPReceiver, LogLevel, type Logger } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { postSlackEvent, postSlackInteraction } from '../../test/fakes/slack-signing.js';
import { SLACK_IDS, appMention, blockActionsCancel, eventCallback, urlVerification } from '../../test/fixtures/slack/index.js';
import { silentLogger } from '../core/ports/logger.js';
import { createMetrics } from '../http/metrics.js';
import { createHttpServer, listen, type RunningHttpServer } from '../http/server.js';
import { slackEventsEndpoint } from './events-endpoint.js';

const SECRET = 'events-endpoint-test-secret';

let running: RunningHttpServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const quiet: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

/** The route as the service mounts it: a real Bolt app and its HTTP receiver behind our own check. */
async function start(): Promise<{ app: App; url: string }> {
  const receiver = new HTTPReceiver({
    signingSecret: SECRET,
    endpoints: '/slack/events',
    processBeforeResponse: true,
    signatureVerification: false,
    logger: quiet,
  });
  const app = new App({
    receiver,
    token: 'xoxb-test',
    botUserId: SLACK_IDS.botUser,
    botId: 'BBOT',
    tokenVerificationEnabled: false,
    convoStore: false,
    logger: quiet,
  });
  const server = createHttpServer({
    routes: [slackEventsEndpoint({ receiver, app, signingSecret: SECRET, logger: silentLogger })],
    metrics: createMetrics({ defaultMetrics: false }),
    logger: silentLogger,
  });
  running = await listen(server, 0, '127.0.0.1');
  return { app, url: `${running.url}/slack/events` };
}

describe('POST /slack/events', () => {
  it("answers an event only once its listener is done, with Bolt's bare 200, and gives the listener Slack's retry headers", async () => {
    const { app, url } = await start();
    let release: () => void = () => {};
    let entered: () => void = () => {};
    const inListener = new Promise<void>((resolve) => (entered = resolve));
    const got: Array<{ eventId: unknown; retryNum: number | undefined; retryReason: string | undefined }> = [];
    app.event('app_mention', async ({ body, context }) => {
      got.push({ eventId: body.event_id, retryNum: context.retryNum, retryReason: context.retryReason });
      entered();
      await new Promise<void>((resolve) => (release = resolve));
    });
    let answered = false;
    const mention = eventCallback(appMention());
    const response = postSlackEvent(url, SECRET, mention, { retryNum: 2, retryReason: 'http_timeout' }).then((answer) => {
      answered = true;
      return answer;
    });
    await inListener;
    // Another request answered meanwhile shows the server had time to answer the first, had it not waited.
    expect((await postSlackEvent(url, SECRET, urlVerification())).status).toBe(200);
    expect(answered).toBe(false);
    release();
    const answer = await response;
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('');
    expect(got).toEqual([{ eventId: mention.event_id, retryNum: 2, retryReason: 'http_timeout' }]);
  });

  it('answers 500 when a listener fails, so Slack delivers the event again', async () => {
    const { app, url } = await start();
    app.event('app_mention', async () => {
      throw new Error('the store is gone');
    });
    expect((await postSlackEvent(url, SECRET, eventCallback(appMention()))).status).toBe(500);
  });

  it("leaves what is not an event to Bolt's receiver: the URL check and interactions", async () => {
    const { app, url } = await start();
    const clicked: string[] = [];
    app.action('cancel_run', async ({ ack, body }) => {
      clicked.push(body.user.id);
      await ack();
    });
    const check = await postSlackEvent(url, SECRET, { type: 'url_verification', challenge: 'challenge-1' });
    expect(await check.json()).toEqual({ challenge: 'challenge-1' });
    const click = await postSlackInteraction(url, SECRET, blockActionsCancel());
    expect(click.status).toBe(200);
    expect(clicked).toEqual([SLACK_IDS.user]);
  });
});
