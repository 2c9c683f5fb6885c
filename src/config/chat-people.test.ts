import { describe, expect, it, vi } from 'vitest';
import { problemsOf, tempDir } from '../../test/config/helpers.js';
import { loadConfig } from './load-config.js';

/*
 * Approvers and admins are persons of any chat surface, not users of one: with a made-up second chat
 * surface whose users are people (test/config/made-up-surface.ts, with person ids), a route's
 * approvers may be people of both, each asked on their own surface, and a route whose approvers'
 * surface is off is refused naming that surface.
 */
vi.mock('../surface-list.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../surface-list.js')>();
  const { parleyModule } = await import('../../test/config/made-up-surface.js');
  const { PersonIds } = await import('../surface-kit/person-ids.js');
  const parley = {
    ...parleyModule,
    personIds: { isUserId: (id: string) => /^[0-9a-f]{8}$/.test(id), example: '6e1c1a2b', idName: 'Parley user ID', whereToFind: 'in Entra ID' },
  };
  const modules = [...original.SURFACE_MODULES, parley];
  return {
    ...original,
    SURFACE_MODULES: modules,
    PERSON_IDS: new PersonIds(modules.flatMap((module) => (module.personIds ? [{ name: module.name, title: module.title, personIds: module.personIds }] : []))),
  };
});

const F = 'agent-bridge.yml';
const PARLEY = { PARLEY_APP_ID: 'parley-app-1', PARLEY_APP_PASSWORD: 'parley-password-made-up-0123' };
const SLACK = { SLACK_BOT_TOKEN: 'xoxb-chat-people', SLACK_SIGNING_SECRET: 'chat-people-signing' };
const ROUTE = 'slack:\n  channels:\n    C0PROD0001: { approval: { approvers: [U0LEAD0001, "Parley:6e1c1a2b"] } }\n';

const load = (env: Record<string, string>, yaml: string) => loadConfig({ env, cwd: tempDir({ [F]: yaml }) });

describe('people of two chat surfaces', () => {
  it('asks each approver on their own surface, and reads every admin as the canonical person id', () => {
    const config = load({ ...SLACK, ...PARLEY }, `${ROUTE}console:\n  admins: [slack:U0ADMIN001, PARLEY:0a1b2c3d]\n`);
    expect(config.slack.channels['C0PROD0001']?.approval).toEqual({
      approvers: ['U0LEAD0001', 'parley:6e1c1a2b'],
      expiresMs: 86_400_000,
      approverPlaces: ['slack:U0LEAD0001', 'parley:6e1c1a2b'],
    });
    expect(config.console.admins).toEqual(['U0ADMIN001', 'parley:0a1b2c3d']);
  });

  it('refuses a route whose approvers’ chat surface is off, naming that surface', () => {
    const problems = problemsOf(() => load(SLACK, ROUTE));
    expect(problems).toEqual([
      {
        where: `${F}: slack.channels.C0PROD0001.approval`,
        message: 'needs Parley: approvers who are its users are asked there, but it is off',
        hint: 'turn Parley on (its variables are in docs/configuration.md), or remove approval',
      },
    ]);
    expect(problemsOf(() => load(PARLEY, ROUTE)).map((problem) => problem.message)).toContain(
      'needs Slack: approvers are asked there (SLACK_BOT_TOKEN is not set)',
    );
  });

  it('says what a person id of each chat surface looks like', () => {
    expect(problemsOf(() => load(SLACK, 'console:\n  admins: [6e1c1a2b]\n'))).toEqual([
      {
        where: `${F}: console.admins[0]`,
        message:
          'is not a person id — use a Slack user ID such as U0123ABCD (profile → ⋮ → Copy member ID), or a Teams user’s Entra object ID written teams:<id>, such as teams:6e1c2f5a-0b1d-4c8e-9f3a-2d7b8c9e0f11 (Microsoft Entra admin center → Users → the person → Object ID), or a Parley user ID written parley:<id>, such as parley:6e1c1a2b (in Entra ID), not a name',
      },
    ]);
  });
});
