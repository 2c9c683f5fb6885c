import { describe, expect, it } from 'vitest';
import { SLACK_PERSON_IDS } from '../slack/config/ids.js';
import { PersonIds, type PeopleSurface } from '../surface-kit/person-ids.js';
import { ownUserIdSchema, personIdSchema } from './person-id-schema.js';
import { routeParts } from './route-schema.js';
import { toRoute } from './route-values.js';

/*
 * People in the config are persons of any chat surface: Slack's ids bare as they always were, and any
 * chat surface's written `<surface>:<id>`; `alpha` is a made-up second chat surface with ids of its own.
 */
const slack: PeopleSurface = { name: 'slack', title: 'Slack', personIds: SLACK_PERSON_IDS };
const alpha: PeopleSurface = {
  name: 'alpha',
  title: 'Alpha',
  personIds: { isUserId: (id) => /^a-[0-9]{4}$/.test(id), example: 'a-0001', idName: 'Alpha user ID', whereToFind: 'in Alpha’s directory' },
};
const people = new PersonIds([slack, alpha]);
const messageOf = (result: { error?: { issues: Array<{ message: string }> } }) => result.error?.issues[0]?.message;

describe('a person in the config (approval.approvers, console.admins)', () => {
  it.each([
    ['U0123ABCD', 'U0123ABCD'],
    ['W0123ABCD', 'W0123ABCD'],
    ['slack:U0123ABCD', 'U0123ABCD'],
    ['SLACK:U0123ABCD', 'U0123ABCD'],
    [' slack:U0123ABCD ', 'U0123ABCD'],
    ['alpha:a-0001', 'alpha:a-0001'],
    ['ALPHA:a-0001', 'alpha:a-0001'],
  ])('reads %j as the person %j', (text, personId) => {
    expect(personIdSchema(people).parse(text)).toBe(personId);
  });

  it.each([['alice'], ['@alice'], ['u0123abcd'], ['a-0001'], ['alpha:U0123ABCD'], ['slack:a-0001'], ['beta:U0123ABCD'], ['']])(
    'refuses %j, saying what a person id of each chat surface looks like',
    (text) => {
      expect(messageOf(personIdSchema(people).safeParse(text))).toBe(
        'is not a person id — use a Slack user ID such as U0123ABCD (profile → ⋮ → Copy member ID), or an Alpha user ID written alpha:<id>, such as alpha:a-0001 (in Alpha’s directory), not a name',
      );
    },
  );
});

describe('a chat surface’s own allowed_users', () => {
  it.each([
    [slack, 'U0123ABCD', 'U0123ABCD'],
    [slack, 'slack:U0123ABCD', 'U0123ABCD'],
    [slack, 'SLACK:W0123ABCD', 'W0123ABCD'],
    [alpha, 'a-0001', 'a-0001'],
    [alpha, 'alpha:a-0001', 'a-0001'],
  ])('%# reads %j as the user id its events carry, %j', (surface, text, userId) => {
    expect(ownUserIdSchema(surface).parse(text)).toBe(userId);
  });

  it.each([
    [slack, 'alpha:a-0001', 'is not a Slack user ID — use IDs such as U0123ABCD or slack:U0123ABCD (profile → ⋮ → Copy member ID), not names'],
    [slack, '@alice', 'is not a Slack user ID — use IDs such as U0123ABCD or slack:U0123ABCD (profile → ⋮ → Copy member ID), not names'],
    [alpha, 'slack:U0123ABCD', 'is not an Alpha user ID — use IDs such as a-0001 or alpha:a-0001 (in Alpha’s directory), not names'],
  ])('%# refuses %j: another surface’s user or a name', (surface, text, message) => {
    expect(messageOf(ownUserIdSchema(surface).safeParse(text))).toBe(message);
  });
});

describe('a route’s approval', () => {
  const parts = routeParts([], people);
  const approval = (approvers: string[]) => parts.surfaceRouteShape.approval.parse({ approvers });

  it('asks each approver one to one on their own chat surface, whatever way they were written', () => {
    const route = toRoute({ approval: approval(['SLACK:U0LEAD0001', 'alpha:a-0002', 'U0LEAD0003']) }, parts);
    expect(route.approval).toEqual({
      approvers: ['U0LEAD0001', 'alpha:a-0002', 'U0LEAD0003'],
      expiresMs: 86_400_000,
      approverPlaces: ['slack:U0LEAD0001', 'alpha:a-0002', 'slack:U0LEAD0003'],
    });
  });

  it('needs at least one approver, and says what one looks like', () => {
    expect(messageOf(parts.surfaceRouteShape.approval.safeParse({ approvers: [] }))).toMatch(
      /^must list at least one person who may approve: a Slack user ID such as U0123ABCD .*alpha:a-0001/,
    );
  });
});
