import { LinearClient } from '@linear/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLinearApi, type FakeLinearApi } from '../../test/fakes/linear-api.js';
import { TestClock } from '../core/ports/clock.js';
import { LinearAccess } from './access.js';
import { sdkLinearApi, type LinearApi } from './linear-api.js';

/* Who may drive the agent from Linear, by the roles the fake Linear GraphQL API reports (docs/linear.md). */

const KEY = 'lin_api_access_0123456789';
const MEMBER = '0a1b2c3d-0000-4000-8000-0000member01';
const GUEST = '0a1b2c3d-0000-4000-8000-00000guest01';
const LISTED_GUEST = '0a1b2c3d-0000-4000-8000-00000guest02';
const APP = '0a1b2c3d-0000-4000-8000-000000app001';
const SUSPENDED = '0a1b2c3d-0000-4000-8000-0suspended01';
let fake: FakeLinearApi;
let api: LinearApi;
let clock: TestClock;
let access: LinearAccess;

beforeAll(async () => {
  fake = await startFakeLinearApi({
    strangersUnknown: true,
    users: [
      { id: MEMBER, name: 'Ada' },
      { id: GUEST, name: 'Gus', guest: true },
      { id: LISTED_GUEST, name: 'Lisa', guest: true },
      { id: APP, name: 'Some agent', app: true },
      { id: SUSPENDED, name: 'Sam', active: false },
    ],
  });
  api = sdkLinearApi(new LinearClient({ apiKey: KEY, apiUrl: fake.url }));
});
afterAll(() => fake.close());
beforeEach(() => {
  clock = new TestClock();
  access = new LinearAccess({ api, allowedUsers: [LISTED_GUEST.toUpperCase(), APP], now: () => clock.now() });
});

const asking = (id: string | undefined) => ({ payload: { ...(id !== undefined && { requester: { platform: 'linear', id } }) } });
const roleCalls = () => fake.calls.filter((call) => call.operation === 'AgentBridgeUserRole').length;

describe('LinearAccess', () => {
  it.each([
    ['a member', MEMBER, undefined],
    ['a guest', GUEST, 'the user is a guest and not in linear.allowed_users'],
    ['a guest in linear.allowed_users (ids compared lower-cased)', LISTED_GUEST, undefined],
    ['an app’s user, even listed', APP, 'the user is an app'],
    ['a suspended account', SUSPENDED, 'the user is suspended'],
    ['a user Linear does not know', '0a1b2c3d-0000-4000-8000-00nobody0001', 'Linear does not know the user'],
  ])('%s', async (_who, id, refusal) => {
    expect(await access.refusal(asking(id))).toBe(refusal);
  });

  it('nobody asked: refused without a question; a user’s roles are asked once in five minutes', async () => {
    const before = roleCalls();
    expect(await access.refusal(asking(undefined))).toBe('no Linear user asked');
    expect(roleCalls()).toBe(before);
    await access.refusal(asking(MEMBER));
    await access.refusal(asking(MEMBER));
    expect(roleCalls()).toBe(before + 1);
    await clock.advance(5 * 60_000);
    await access.refusal(asking(MEMBER));
    expect(roleCalls()).toBe(before + 2);
  });
});
