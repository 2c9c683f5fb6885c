import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningService } from '../../src/main.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import { postSlackEvent } from '../fakes/slack-signing.js';
import { appMention, directMessage, eventCallback } from '../fixtures/slack/events.js';
import { SLACK_IDS, nextTs } from '../fixtures/slack/ids.js';
import { SLACK_SECRET, type SlackBridge, useSlackBridge } from '../helpers/slack-bridge.js';

/*
 * A pasted session link unfurls only where its run may be seen — in a channel the
 * run reports in, or wherever the person who started it pastes it. A direct message's run is its
 * starter's: pasted by anyone else, even in a channel the bot is in, it is left as Slack shows it.
 * End to end: the real Bolt receives correctly signed `link_shared` events, the fake Slack Web API
 * records `chat.unfurl`, the emulator plays the run API.
 */

const CHANNEL = SLACK_IDS.channel;
const ELSEWHERE = 'C0ELSEWHERE1';
const STARTER = SLACK_IDS.user;
const SOMEONE = SLACK_IDS.otherUser;
let bridge: SlackBridge;
let slack: FakeSlackApi, emulator: RunningEmulator, service: RunningService;

const world = useSlackBridge({
  channels: { [CHANNEL]: 'dev', [ELSEWHERE]: 'random' },
  users: { [STARTER]: { display_name: 'ada' }, [SOMEONE]: { display_name: 'grace' } },
  yaml: 'tracker:\n  interval: 1s\nslack:\n  unfurl_domains: [127.0.0.1]\n',
});
beforeAll(() => {
  bridge = world.bridge;
  ({ slack, emulator, service } = bridge);
});

const until: SlackBridge['until'] = (find, what) => bridge.until(find, what);

/** Starts a run with `event` (a mention or a direct message), brings it to INPROGRESS and returns its session link. */
async function runLink(event: Record<string, unknown> & { type: string }, title: string): Promise<string> {
  expect((await bridge.post(event)).status).toBe(200);
  const run = await until(() => emulator.engine.list({}).runs.find((candidate) => candidate.title === title), `the run "${title}"`);
  emulator.engine.drive(run.run_id, 'INPROGRESS');
  return until(async () => (await service.store.trackedRuns.get(run.run_id))?.sessionLink ?? undefined, `the session link of "${title}"`);
}

/** Pastes `link` as `user` in `channel`; once the preview row is worked, the links `chat.unfurl` previewed for it. */
async function paste(link: string, user: string, channel: string): Promise<string[]> {
  const unfurlId = `Uf${nextTs()}`;
  const body = eventCallback({
    type: 'link_shared',
    channel,
    user,
    message_ts: nextTs(),
    unfurl_id: unfurlId,
    source: 'conversations_history',
    links: [{ domain: new URL(link).hostname, url: link }],
    event_ts: nextTs(),
  });
  expect((await postSlackEvent(bridge.events, SLACK_SECRET, body)).status).toBe(200);
  await until(
    async () => (await service.store.outbox.list({ destination: `slack:unfurl:${channel}` })).find((row) => row.key === `unfurl:${unfurlId}`)?.state === 'sent',
    'the preview row worked',
  );
  const call = slack.callsTo('chat.unfurl').find((candidate) => candidate.args['unfurl_id'] === unfurlId);
  return call ? Object.keys(call.args['unfurls'] as Record<string, unknown>) : [];
}

describe('link previews only where the run may be seen', () => {
  let channelLink: string;
  let dmLink: string;

  beforeAll(async () => {
    channelLink = await runLink(appMention({ channel: CHANNEL, user: STARTER, text: `<@${SLACK_IDS.botUser}> Tidy the changelog` }), 'Tidy the changelog');
    dmLink = await runLink(directMessage({ user: STARTER, text: 'Rotate my staging credentials' }), 'Rotate my staging credentials');
  });

  it('a channel run’s link unfurls in its channel for anyone, and elsewhere only for its starter', async () => {
    expect(await paste(channelLink, SOMEONE, CHANNEL)).toEqual([channelLink]);
    expect(await paste(channelLink, SOMEONE, ELSEWHERE)).toEqual([]);
    expect(await paste(channelLink, STARTER, ELSEWHERE)).toEqual([channelLink]);
  });

  it('a direct message’s run unfurls for its starter only, not when someone else pastes its link in a channel', async () => {
    expect(await paste(dmLink, SOMEONE, CHANNEL)).toEqual([]);
    expect(await paste(dmLink, STARTER, CHANNEL)).toEqual([dmLink]);
  });
});
