import { describe, expect, it, vi } from 'vitest';
import { PersonIds } from '../surface-kit/person-ids.js';
import { displayNames } from './display-names.js';
import type { AppConfig } from '../config/types.js';
import type { SurfaceModule } from '../surface-kit/surface-module.js';
import { keyRemovedNotice } from './people.js';
import { howToConnect } from './run-keys.js';

/*
 * The console's people may be of any chat surface: a name is asked of the person's own surface, and so
 * is the word that their key was removed. `talk` is a made-up second chat surface.
 */
const PEOPLE = new PersonIds([
  { name: 'slack', title: 'Slack', personIds: { isUserId: (id) => /^U\w+$/.test(id), bare: true, example: 'U1', idName: 'Slack user ID', whereToFind: '' } },
  { name: 'talk', title: 'Talk', personIds: { isUserId: (id) => /^t-\d+$/.test(id), example: 't-1', idName: 'Talk user ID', whereToFind: '' } },
]);

describe('people of two chat surfaces in the console', () => {
  it('asks each person’s name of their own surface, by their user id there, and skips ids that are no person’s', async () => {
    const slack = { displayName: vi.fn(async (user: string) => (user === 'U0ADA' ? 'Ada' : undefined)) };
    const talk = { displayName: vi.fn(async (user: string) => (user === 't-2' ? 'Bob' : undefined)) };
    const names = displayNames({ slack, talk }, { now: () => 0 }, PEOPLE);
    expect(await names.of(['U0ADA', 'talk:t-2', 't-2', 'lin-ada'])).toEqual(
      new Map([
        ['U0ADA', 'Ada'],
        ['talk:t-2', 'Bob'],
      ]),
    );
    expect(slack.displayName.mock.calls).toEqual([['U0ADA']]);
    expect(talk.displayName.mock.calls).toEqual([['t-2']]);
  });

  it('has no name for a person whose surface is off', async () => {
    const names = displayNames({ slack: { displayName: async () => 'Ada' } }, { now: () => 0 }, PEOPLE);
    expect(await names.of(['talk:t-2'])).toEqual(new Map());
  });

  it('tells a person their key was removed on their own surface, and nobody when it is off', async () => {
    const slack = { keyRemoved: vi.fn(async () => undefined) };
    const removed = keyRemovedNotice({ slack }, PEOPLE);
    await removed('U0ADA');
    await removed('talk:t-2');
    await removed('nobody');
    expect(slack.keyRemoved.mock.calls).toEqual([['U0ADA']]);
  });

  it('tells people to connect a key with the command of each chat surface that is on and has one, or on the console', () => {
    const config = { http: { publicUrl: 'https://bridge.example.com' } } as AppConfig;
    const chat = (title: string, on: boolean, connectCommand?: string) =>
      ({ title, personIds: PEOPLE, isOn: () => on, connectCommand }) as unknown as SurfaceModule;
    const tracker = { title: 'Linear', isOn: () => true } as unknown as SurfaceModule;
    expect(howToConnect(config, [chat('Slack', true, '`/agent connect`'), tracker, chat('Talk', true, '`!key`'), chat('Teams', true)])).toBe(
      "`/agent connect` in Slack or `!key` in Talk or the console's key page (https://bridge.example.com/console/my-key)",
    );
    expect(howToConnect(config, [chat('Slack', false), tracker])).toBe("the console's key page (https://bridge.example.com/console/my-key)");
  });
});
