/**
 * Microsoft Teams as the core sees it (the `Surface` port): its places are channels, channel threads,
 * group and 1:1 chats (`places.ts`), where a status card is edited in place, one person can be told
 * something privately (in their 1:1 chat with the bot), and a schedule's channel gets a new thread per
 * run. Teams has no reactions a bot can add.
 */
import type { Route } from '../core/intake/routing.js';
import type { Surface } from '../core/ports/surface.js';
import { parseTeamsPlace } from './places.js';

/** The Teams surface; `channels` are `teams.channels` (channel id or `*` → route). */
export function teamsSurface(channels: Readonly<Record<string, Route>>): Surface<Route> {
  return {
    name: 'teams',
    title: 'Microsoft Teams',
    can: { editInPlace: true, react: false, speakPrivately: true, thread: true },
    isConversation: (destination) => {
      const place = parseTeamsPlace(destination);
      return place !== undefined && place.kind !== 'person';
    },
    route: (origin) => (origin['channel'] === undefined ? undefined : channels[origin['channel']]) ?? channels['*'],
    nameElsewhere: (personId, name) => (name ? `${name} (Microsoft Teams)` : `Microsoft Teams user ${personId.replace(/^teams:/, '')}`),
    scheduleNotify: (notify) => (notify['teamsChannel'] ? `teams:${notify['teamsChannel']}` : undefined),
  };
}
