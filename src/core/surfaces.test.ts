import { describe, expect, it } from 'vitest';
import { followupHeardElsewhere } from './intake/intake-messages.js';
import { keyProblemMessages } from './intake/key-messages.js';
import { resolveRoute, type Route } from './intake/routing.js';
import type { Surface } from './ports/surface.js';
import type { StoredTrigger, TrackedRun } from './ports/store.js';
import { scheduleDestinations } from './schedules/schedule-definition.js';
import { Surfaces } from './surfaces.js';
import { transitionRows } from './tracker/owed-rows.js';
import { followupAccepted } from './intake/followup-batch.js';

/**
 * A surface the core has never heard of: registering it is all it takes for the core's
 * rules to treat its places by what they can do — nothing in the core names it.
 */
const forge: Surface<Route> = {
  name: 'forge',
  title: 'Forge',
  can: { editInPlace: true, react: true, speakPrivately: true, thread: false },
  isConversation: (destination) => /^forge:[^:]+#\d+$/.test(destination),
  route: (origin) => (origin['repo'] === 'acme/web' ? { config: { environment_id: 'env_web' } } : undefined),
  nameElsewhere: (personId) => `Forge user ${personId}`,
  scheduleNotify: (notify) => (notify['forgeIssue'] ? `forge:${notify['forgeIssue']}` : undefined),
};
const surfaces = new Surfaces([forge]);
const ISSUE = 'forge:acme/web#12';

const start = (anchor: string, requester: { platform: string; id: string }): StoredTrigger =>
  ({
    kind: 'start',
    key: `k:${anchor}`,
    source: requester.platform,
    anchor,
    payload: { prompt: 'p', title: 't', origin: { source: 'cli' }, destinations: [anchor], requester },
  }) as unknown as StoredTrigger;

describe('a surface the core does not name', () => {
  it('is asked by destination or source; a place of no registered surface can do nothing', () => {
    expect(surfaces.of(ISSUE)).toBe(forge);
    expect(surfaces.of('forge')).toBe(forge);
    expect(surfaces.speaksPrivately(ISSUE)).toBe(true);
    expect(surfaces.isConversation(ISSUE)).toBe(true);
    expect(surfaces.isConversation('forge:home:U1')).toBe(false);
    expect(surfaces.speaksPrivately('log:cli')).toBe(false);
    expect(surfaces.isConversation('log:cli')).toBe(false);
    expect(surfaces.title('log:cli')).toBe('log');
  });

  it('routes its own origins, over the defaults', () => {
    const table = { defaults: { config: { model_id: 'm' } }, schedules: {} };
    expect(resolveRoute(table, { source: 'forge', repo: 'acme/web' }, surfaces)).toEqual({
      kind: 'run',
      config: { model_id: 'm', environment_id: 'env_web', name: 'forge' },
    });
    expect(resolveRoute(table, { source: 'forge', repo: 'acme/api' }, surfaces)).toEqual({ kind: 'run', config: { model_id: 'm', name: 'forge' } });
  });

  it('where it speaks privately, the person alone hears about their missing key', () => {
    const rows = keyProblemMessages(start(ISSUE, { platform: 'forge', id: 'octo' }), 'start', { kind: 'no_key' }, 'the console', surfaces);
    expect(rows[0]?.payload).toMatchObject({ kind: 'notice', privateTo: 'octo' });
    // Unregistered, the same place cannot whisper: the public failure carries how to connect a key.
    const unregistered = keyProblemMessages(start(ISSUE, { platform: 'forge', id: 'octo' }), 'start', { kind: 'no_key' }, 'the console', Surfaces.none);
    expect(unregistered.map((row) => row.kind)).toEqual(['failed']);
    expect(JSON.stringify(unregistered[0]?.payload)).toContain('connect one with the console');
  });

  it('its name and its people are worded by the surface in another surface’s place', () => {
    const chat: Surface<Route> = { ...forge, name: 'chat', title: 'Chat', isConversation: () => true, route: () => undefined };
    const both = new Surfaces([forge, chat]);
    const followup = { kind: 'followup', key: 'k', source: 'forge', anchor: ISSUE, payload: { message: 'x' } } as unknown as StoredTrigger;
    const run = { runId: 'r1', destinations: [ISSUE, 'chat:C1'], triggerKey: 't' } as unknown as TrackedRun;
    const rows = followupHeardElsewhere(followup, run, { platform: 'forge', id: 'octo', name: '@octo' }, both);
    expect(rows.map((row) => [row.destination, (row.payload as { text: string }).text])).toEqual([
      ['chat:C1', 'Forge user octo sent the run a follow-up from Forge.'],
    ]);
  });

  it('reads its own key of a schedule’s notify; without one the schedule reports to the log', () => {
    expect(scheduleDestinations({ name: 'nightly', notify: { forgeIssue: 'acme/web#7' } }, surfaces)).toEqual(['forge:acme/web#7']);
    expect(scheduleDestinations({ name: 'nightly', notify: { forgeIssue: 'acme/web#7' } }, Surfaces.none)).toEqual(['log:schedule:nightly']);
  });

  it('reads what its places can do: no status edits where nothing is edited in place, no acknowledgement where nothing reacts', () => {
    // A board whose cards take new comments only: no edits, no reactions, no threads.
    const board: Surface<Route> = { ...forge, name: 'board', title: 'Board', can: { editInPlace: false, react: false, speakPrivately: false, thread: false } };
    const both = new Surfaces([forge, board]);
    const run = { runId: 'r1', destinations: [ISSUE, 'board:card-9', 'log:cli'], triggerKey: 't', transition: 0, route: {} } as unknown as TrackedRun;
    const moved = transitionRows(run, { run_id: 'r1', state: 'INPROGRESS' }, { sessionLink: null, announce: false }, both);
    expect(moved.map((row) => [row.destination, row.kind])).toEqual([
      [ISSUE, 'status'],
      ['log:cli', 'status'],
    ]);
    const ended = transitionRows(run, { run_id: 'r1', state: 'SUCCEEDED' }, { sessionLink: null, announce: true }, both);
    expect(ended.filter((row) => row.destination === 'board:card-9').map((row) => row.kind)).toEqual(['announce']);
    expect(followupAccepted({ key: 'f1', anchor: 'board:card-9' }, 'r1', undefined, both)).toEqual([]);
    expect(followupAccepted({ key: 'f1', anchor: ISSUE }, 'r1', { id: 'c1' }, both).map((row) => row.kind)).toEqual(['followup_accepted']);
  });

  it('a schedule’s place follows the latest run only where the surface does not thread', () => {
    const chat: Surface<Route> = {
      ...forge,
      name: 'chat',
      can: { ...forge.can, thread: true },
      scheduleNotify: (notify) => (notify['chatChannel'] ? `chat:${notify['chatChannel']}` : undefined),
    };
    expect(new Surfaces([forge, chat]).scheduleNotify({ forgeIssue: 'acme/web#7', chatChannel: 'C1' })).toEqual([
      { destination: 'forge:acme/web#7', followsLatestRun: true },
      { destination: 'chat:C1', followsLatestRun: false },
    ]);
  });
});
