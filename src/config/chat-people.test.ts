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
  const { teamsModule } = await import('../../test/config/made-up-surface.js');
  const { PersonIds } = await import('../surface-kit/person-ids.js');
  const teams = {
    ...teamsModule,
    personIds: { isUserId: (id: string) => /^[0-9a-f]{8}$/.test(id), example: '6e1c1a2b', idName: 'Teams user ID', whereToFind: 'in Entra ID' },
  };
  const modules = [...original.SURFACE_MODULES, teams];
  return {
    ...original,
    SURFACE_MODULES: modules,
    PERSON_IDS: new PersonIds(modules.flatMap((module) => (module.personIds ? [{ name: module.name, title: module.title, personIds: module.personIds }] : []))),
  };
});

const F = 'agent-bridge.yml';
const TEAMS = { TEAMS_APP_ID: 'teams-app-1', TEAMS_APP_PASSWORD: 'teams-password-made-up-0123' };
const SLACK = { SLACK_BOT_TOKEN: 'xoxb-chat-people', SLACK_SIGNING_SECRET: 'chat-people-signing' };
const ROUTE = 'slack:\n  channels:\n    C0PROD0001: { approval: { approvers: [U0LEAD0001, "Teams:6e1c1a2b"] } }\n';

const load = (env: Record<string, string>, yaml: string) => loadConfig({ env, cwd: tempDir({ [F]: yaml }) });

describe('people of two chat surfaces', () => {
  it('asks each approver on their own surface, and reads every admin as the canonical person id', () => {
    const config = load({ ...SLACK, ...TEAMS }, `${ROUTE}console:\n  admins: [slack:U0ADMIN001, TEAMS:0a1b2c3d]\n`);
    expect(config.slack.channels['C0PROD0001']?.approval).toEqual({
      approvers: ['U0LEAD0001', 'teams:6e1c1a2b'],
      expiresMs: 86_400_000,
      approverPlaces: ['slack:U0LEAD0001', 'teams:6e1c1a2b'],
    });
    expect(config.console.admins).toEqual(['U0ADMIN001', 'teams:0a1b2c3d']);
  });

  it('refuses a route whose approvers’ chat surface is off, naming that surface', () => {
    const problems = problemsOf(() => load(SLACK, ROUTE));
    expect(problems).toEqual([
      {
        where: `${F}: slack.channels.C0PROD0001.approval`,
        message: 'needs Microsoft Teams: approvers who are its users are asked there, but it is off',
        hint: 'turn Microsoft Teams on (its variables are in docs/configuration.md), or remove approval',
      },
    ]);
    expect(problemsOf(() => load(TEAMS, ROUTE)).map((problem) => problem.message)).toContain(
      'needs Slack: approvers are asked there (SLACK_BOT_TOKEN is not set)',
    );
  });

  it('says what a person id of each chat surface looks like', () => {
    expect(problemsOf(() => load(SLACK, 'console:\n  admins: [6e1c1a2b]\n'))).toEqual([
      {
        where: `${F}: console.admins[0]`,
        message:
          'is not a person id — use a Slack user ID such as U0123ABCD (profile → ⋮ → Copy member ID), or a Teams user ID written teams:<id>, such as teams:6e1c1a2b (in Entra ID), not a name',
      },
    ]);
  });
});
