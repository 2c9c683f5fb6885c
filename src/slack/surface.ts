/**
 * Slack as the core sees it (the `Surface` port): its places are channels and threads
 * (`slack:<channel>[:<thread ts>]`) and DMs, where a status message is edited in place, reactions mark
 * requests, one person can be told something privately (an ephemeral message) and a schedule's channel
 * gets a new thread per run. Registered by the composition root (`compose/surfaces.ts`).
 */
import type { Route } from '../core/intake/routing.js';
import type { Surface } from '../core/ports/surface.js';

/** A channel or a thread in one: not the Home tab (`slack:home:…`) nor an assistant pane. */
const CONVERSATION = /^slack:[A-Z0-9]+(?::\d+\.\d+)?$/i;

/** The Slack surface; `channels` are `slack.channels` (channel ID or `*` → route). */
export function slackSurface(channels: Readonly<Record<string, Route>>): Surface<Route> {
  return {
    name: 'slack',
    title: 'Slack',
    can: { editInPlace: true, react: true, speakPrivately: true, thread: true },
    isConversation: (destination) => CONVERSATION.test(destination),
    route: (origin) => (origin.channel === undefined ? undefined : channels[origin.channel]) ?? channels['*'],
    // A Slack mention (`<@U1>`) means nothing elsewhere: the person is named by their user id.
    nameElsewhere: (personId) => `Slack user ${personId}`,
    // A new thread per run in the channel: the thread is aliased to its run when the status message starts it.
    scheduleNotify: (notify) => (notify['slackChannel'] ? `slack:${notify['slackChannel']}` : undefined),
  };
}
