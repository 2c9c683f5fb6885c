import { App, MultipleListenerError, type Receiver, type ReceiverEvent } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { SLACK_IDS, appMention, blockActionsCancel, eventCallback, reactionAdded } from '../../test/fixtures/slack/index.js';
import { EventRouter } from './event-router.js';

const BOT_USER = SLACK_IDS.botUser;

/** A real Bolt app whose requests the test hands to `processEvent` itself, as a receiver would. */
function boltWithRouter() {
  const receiver: Receiver = { init: () => {}, start: () => Promise.resolve(), stop: () => Promise.resolve() };
  const app = new App({ receiver, token: 'xoxb-test', botUserId: BOT_USER, botId: 'BBOT', tokenVerificationEnabled: false, convoStore: false });
  const errors: unknown[] = [];
  app.error(async (error) => {
    errors.push(error);
  });
  const router = new EventRouter();
  app.use(router.middleware);
  const send = async (body: Record<string, unknown>): Promise<{ acked: boolean }> => {
    const seen = { acked: false };
    const event: ReceiverEvent = { body, ack: async () => void (seen.acked = true) };
    await app.processEvent(event);
    return seen;
  };
  return { app, router, listeners: router.listenerApp(app), errors, send };
}

describe('EventRouter', () => {
  it('hands an event to every handler of its type and to no other', async () => {
    const { listeners, send } = boltWithRouter();
    const seen: string[] = [];
    listeners.event('app_home_opened', async ({ event }) => void seen.push(`home A ${event.user}`));
    listeners.event('app_home_opened', async ({ event }) => void seen.push(`home B ${event.user}`));
    listeners.event('app_mention', async () => void seen.push('mention'));
    const { acked } = await send(eventCallback({ type: 'app_home_opened', user: 'U1', channel: 'D1', tab: 'home' }));
    expect(seen.sort()).toEqual(['home A U1', 'home B U1']);
    expect(acked).toBe(true);
  });

  it('passes what a Bolt event listener gets: the event, the body and the context', async () => {
    const { listeners, send } = boltWithRouter();
    let got: { text?: string; eventId?: unknown; botUserId?: string } = {};
    listeners.event('app_mention', async ({ event, body, context }) => {
      got = { text: event.text, eventId: (body as { event_id?: unknown }).event_id, ...(context.botUserId && { botUserId: context.botUserId }) };
    });
    const body = eventCallback(appMention({ text: `<@${BOT_USER}> hi` }));
    await send(body);
    expect(got).toEqual({ text: `<@${BOT_USER}> hi`, eventId: body.event_id, botUserId: BOT_USER });
  });

  it("drops the bot's own events (Bolt's ignoreSelf runs first) and answers an event nobody handles", async () => {
    const { listeners, send, errors } = boltWithRouter();
    const seen: string[] = [];
    listeners.event('reaction_added', async () => void seen.push('reaction'));
    await send(eventCallback(reactionAdded({ user: BOT_USER, reaction: 'eyes', ts: '1710000000.000100' })));
    const { acked } = await send(eventCallback({ type: 'channel_created', channel: { id: 'C9' } }));
    expect(seen).toEqual([]);
    expect(acked).toBe(true);
    expect(errors).toEqual([]);
  });

  it("leaves every other request to Bolt's listeners", async () => {
    const { listeners, send } = boltWithRouter();
    const seen: string[] = [];
    listeners.event('app_mention', async () => void seen.push('mention'));
    listeners.action({ action_id: 'cancel_run', type: 'block_actions' }, async ({ ack }) => {
      seen.push('cancel');
      await ack();
    });
    const { acked } = await send(blockActionsCancel());
    expect(seen).toEqual(['cancel']);
    expect(acked).toBe(true);
  });

  it.each([
    {
      failing: 1,
      expected: (error: unknown) => expect((error as { original?: Error }).original?.message ?? (error as Error).message).toBe('handler 0 failed'),
    },
    { failing: 2, expected: (error: unknown) => expect(error).toBeInstanceOf(MultipleListenerError) },
  ])("gives Bolt's error handling a failure as Bolt would ($failing failing)", async ({ failing, expected }) => {
    const { listeners, send, errors } = boltWithRouter();
    const ran: number[] = [];
    for (let index = 0; index < 2; index++) {
      listeners.event('app_home_opened', async () => {
        ran.push(index);
        if (index < failing) throw new Error(`handler ${index} failed`);
      });
    }
    await send(eventCallback({ type: 'app_home_opened', user: 'U1', channel: 'D1', tab: 'home' }));
    expect(ran.sort()).toEqual([0, 1]);
    expect(errors).toHaveLength(1);
    expected(errors[0]);
  });

  it('refuses a pattern or several handlers in one call', () => {
    const { listeners } = boltWithRouter();
    expect(() => listeners.event(/app_.*/, async () => {})).toThrow(/exact type name/);
    expect(() =>
      listeners.event(
        'app_mention',
        async () => {},
        async () => {},
      ),
    ).toThrow(/one handler/);
  });
});
