/**
 * Step 4 of the composition root (`main.ts`): the front door (the intake) and the edges that hand it
 * requests — the surfaces' integrations — with whose key each request runs under.
 */
import type { AgentRuns } from '../core/ports/agent-runs.js';
import { ApprovalDesk } from '../core/approvals/approval-desk.js';
import { IntakeService } from '../core/intake/intake-service.js';
import type { Store } from '../core/ports/store.js';
import { slackAccessPolicy } from '../slack/access.js';
import { githubIntegration, jiraIntegration, linearIntegration, slackIntegration } from './integrations.js';
import { personIdentity } from './people.js';
import { composeRunKeys, type RunKeyParts } from './run-keys.js';
import type { ServiceBase } from './service-base.js';
import { FreeWorkers, Wake } from './wake.js';

/** What the front door is built on: the store, the run API and its hooks. */
export interface FrontDoorParts {
  store: Store;
  agentRuns: AgentRuns;
  baseUrl: string;
  apiHooks: NonNullable<RunKeyParts['hooks']>;
}

/** 4. The intake, the surfaces' edges that submit to it, and the keys requests run under. */
export async function openFrontDoor({ config, logger, clock, shutdown, overrides }: ServiceBase, parts: FrontDoorParts) {
  const { store, agentRuns } = parts;
  const stored = new Wake();
  const owed = new Wake();
  const freeWorkers = new FreeWorkers();
  const access = overrides?.access ?? slackAccessPolicy({ allowedUsers: config.slack.allowedUsers, allowedTeams: config.slack.allowedTeams });
  // followups: all — a burst of replies within the window goes to the run as one follow-up.
  const followupWindows = {
    slack: config.slack.followups === 'all' ? config.slack.followupWindowMs : 0,
    linear: config.linear.followups === 'all' ? config.linear.followupWindowMs : 0,
    jira: config.jira.followups === 'all' ? config.jira.followupWindowMs : 0,
  };
  const intake = new IntakeService({
    store,
    clock,
    access,
    onStored: stored.fire,
    onOwed: owed.fire,
    ...(store.triggers.handsOver && { freeWorkers }),
    followupWindows,
  });
  // Requests held for approval (issue 31): decided by Slack's buttons, expired by the work loops' sweep.
  const approvals = new ApprovalDesk({ store, intake, clock, logger: logger.child({ component: 'approvals' }) });
  const slack = await slackIntegration(config, intake, store, logger, access, approvals);
  // Before the database closes; an event stored while the workers stop is worked on the next start.
  if (slack) shutdown.add('slack', () => slack.stop());
  const linear = await linearIntegration(config, intake, store, logger, () => clock.now());
  const github = await githubIntegration(config, intake, store, logger, () => clock.now());
  const jira = await jiraIntegration(config, intake, store, logger, () => clock.now());
  if (jira) shutdown.add('jira', () => jira.close());
  // Whose key each request runs under (people.attribution); the per-person clients close after the workers stop.
  const emailOf = {
    ...(linear && { linear: (userId: string) => linear.api.userEmail(userId) }),
    ...(jira && { jira: (accountId: string) => jira.api.userEmail(accountId) }),
  };
  const identity = personIdentity(store, { ...(slack && { slack }), emailOf }, clock, logger);
  const runKeys = composeRunKeys(config, { service: agentRuns, baseUrl: parts.baseUrl, store, clock, identity, hooks: parts.apiHooks });
  shutdown.add('personal run API clients', () => runKeys.close());
  return { stored, owed, freeWorkers, access, followupWindows, intake, slack, linear, github, jira, runKeys, approvals };
}
