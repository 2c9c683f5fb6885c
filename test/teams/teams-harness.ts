/**
 * The Microsoft Teams end-to-end world: the real service (real SQLite file, real HTTP on loopback) with
 * Teams on against the fake Teams (`test/fakes/teams-api.ts`: its token issuer, OpenID metadata, login
 * service and Bot Connector), Slack on too (the bridge's usual company), and the manual run-API
 * emulator. Activities go in signed as the Bot Connector signs them.
 */
import type { Logger } from '../../src/core/ports/logger.js';
import type { Clock } from '../../src/core/ports/clock.js';
import { startFakeTeams, type BotAnswer, type FakeTeams } from '../fakes/teams-api.js';
import type { FakeLinearApi } from '../fakes/linear-api.js';
import { textRuns } from './card-reading.js';
import { TEAMS_IDS, TEAMS_PEOPLE } from '../fixtures/teams/index.js';
import { startSlackBridge, startSlackFakes, type SlackBridge, type SlackFakes } from '../helpers/slack-bridge.js';

export const TEAMS_SECRET = 'teams-e2e-client-secret-0123456789~abc';

export interface TeamsWorld {
  teams: FakeTeams;
  fakes: SlackFakes;
  bridge: SlackBridge;
  /**
   * POSTs an activity to `/teams/messages` with the connector's token for its serviceUrl (or as
   * `options` say). An activity coming through Microsoft's service URL (the fixtures' default) comes
   * through the fake's instead, so the bot's answers reach the fake.
   */
  send(activity: unknown, options?: Parameters<FakeTeams['sendActivity']>[2]): Promise<BotAnswer>;
  stop(): Promise<void>;
}

/** The variables that turn Teams on against the fake Teams: every Microsoft service it talks to is the fake's. */
export function teamsEnv(teams: FakeTeams, clientSecret = TEAMS_SECRET): Record<string, string> {
  return {
    PUBLIC_URL: 'https://bridge.example',
    TEAMS_CLIENT_ID: TEAMS_IDS.clientId,
    TEAMS_CLIENT_SECRET: clientSecret,
    TEAMS_TENANT_ID: TEAMS_IDS.tenant,
    TEAMS_OPENID_METADATA_URL: teams.openIdMetadataUrl,
    TEAMS_LOGIN_URL: teams.loginUrl,
    TEAMS_SERVICE_URLS: teams.url,
  };
}

export interface TeamsWorldOptions {
  yaml?: string;
  logger?: Logger;
  env?: Record<string, string>;
  linear?: FakeLinearApi;
  clock?: Clock;
  /** The roster's emails of the fixtures' people (default `<name>@contoso.example`). */
  emails?: Partial<Record<keyof typeof TEAMS_PEOPLE, string>>;
}

export async function startTeamsWorld(options: TeamsWorldOptions = {}): Promise<TeamsWorld> {
  const teams = await startFakeTeams({ clientId: TEAMS_IDS.clientId, clientSecret: TEAMS_SECRET, tenantId: TEAMS_IDS.tenant });
  // The roster: everyone of the fixtures with a work email (Mallory is a member too; nobody lists her).
  for (const key of Object.keys(TEAMS_PEOPLE) as Array<keyof typeof TEAMS_PEOPLE>) {
    const email = options.emails?.[key] ?? `${key}@contoso.example`;
    teams.addMember({ ...TEAMS_PEOPLE[key], email, userPrincipalName: email });
  }
  const fakes = await startSlackFakes();
  const bridge = await startSlackBridge({
    fakes,
    ...(options.yaml !== undefined && { yaml: options.yaml }),
    ...(options.logger && { logger: options.logger }),
    ...(options.linear && { linear: options.linear }),
    ...(options.clock && { clock: options.clock }),
    env: {
      ...teamsEnv(teams),
      ...options.env,
    },
  });
  const world: TeamsWorld = {
    teams,
    fakes,
    bridge,
    send: (activity, sendOptions) => {
      const viaFake =
        (activity as { serviceUrl?: unknown } | null)?.serviceUrl === TEAMS_IDS.serviceUrl
          ? { ...(activity as object), serviceUrl: teams.serviceUrl }
          : activity;
      return teams.sendActivity(`${world.bridge.service.url}/teams/messages`, viaFake, sendOptions);
    },
    stop: async () => {
      await world.bridge.stop();
      await fakes.emulator.close();
      await fakes.slack.close();
      await teams.close();
    },
  };
  return world;
}

/** The text of every TextRun of a posted card (or of each of its versions), to search. */
export function cardText(activity: Record<string, unknown>): string {
  return textRuns(activity['attachments']);
}

/** The actions of a posted card: `{type, title, verb?, url?, data?}`. */
export function cardActions(activity: Record<string, unknown>): Array<Record<string, unknown>> {
  const attachments = activity['attachments'] as Array<{ content?: { actions?: Array<Record<string, unknown>> } }> | undefined;
  return attachments?.[0]?.content?.actions ?? [];
}
