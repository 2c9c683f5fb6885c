import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { routeParts, type CompanionPlace } from './route-schema.js';
import { companionPlaces, companionsOn, toRoutes } from './route-values.js';

/*
 * Two made-up chat surfaces, so that nothing here leans on one chat's names: a tracker's route resolves
 * to a companion place on each chat whose key it sets.
 */
const companion = (surface: string, key: string): CompanionPlace => ({
  key,
  surface,
  schema: z.string(),
  neededForApproval: { message: `needs ${key}`, hint: `add ${key}` },
});
/** People of the made-up `chat`: ids starting with P, bare. */
const PEOPLE = {
  parse: (text: string) => (text.startsWith('P') ? { personId: text, surface: 'chat', userId: text } : undefined),
  expected: () => 'a chat user ID such as P1',
};
const NOBODY = { parse: () => undefined, expected: () => 'no chat surface whose users are people is registered' };
const PARTS = routeParts([companion('chat', 'chat_room'), companion('teams', 'teams_channel')], PEOPLE);
const ROUTES = {
  Deploy: { chat_room: 'R0DEPLOY', teams_channel: '19:deploy@thread.tacv2', approval: { approvers: ['P1'], expires: 60_000 } },
  docs: { teams_channel: '19:docs@thread.tacv2' },
  agent: {},
};

describe('companionPlaces: a route’s companion places on every chat surface whose key it sets', () => {
  it('gives each route the places it names, `<surface>:<value>` in the order of the surfaces, by its lower-cased key; a route naming none is left out', () => {
    expect(companionPlaces(ROUTES, PARTS)).toEqual({
      deploy: ['chat:R0DEPLOY', 'teams:19:deploy@thread.tacv2'],
      docs: ['teams:19:docs@thread.tacv2'],
    });
  });

  it('asks a route’s approval in its first companion place', () => {
    expect(toRoutes(ROUTES, PARTS, (name) => name.toLowerCase())['deploy']?.approval?.place).toBe('chat:R0DEPLOY');
  });

  it('with no chat surface to name, no route has a companion place', () => {
    expect(companionPlaces(ROUTES, routeParts([], NOBODY))).toEqual({});
  });
});

describe('companionsOn: a companion place on a chat surface that is off goes nowhere', () => {
  it('keeps the places of the surfaces that are on and drops a route left with none', () => {
    const places = companionPlaces(ROUTES, PARTS);
    expect(companionsOn(places, (surface) => surface === 'teams')).toEqual({
      deploy: ['teams:19:deploy@thread.tacv2'],
      docs: ['teams:19:docs@thread.tacv2'],
    });
    expect(companionsOn(places, (surface) => surface === 'chat')).toEqual({ deploy: ['chat:R0DEPLOY'] });
    expect(companionsOn(places, () => false)).toEqual({});
  });
});
