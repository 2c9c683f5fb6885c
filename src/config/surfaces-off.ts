/**
 * Places the config file names on a surface that is off: a Slack channel while `SLACK_BOT_TOKEN` is
 * unset, a Linear issue while Linear is off. The file is valid on its own, but every message owed to
 * such a place would fail at delivery (`no notifier for platform "slack"`), run after run; so the
 * start refuses it, naming the key and what to turn on.
 */
import { formatPath, type ConfigProblem } from './problems.js';
import type { FileApproval } from '../config-kit/route-schema.js';
import type { FileConfig } from './file-schema.js';

/** Which surfaces that places may name are on, read from the merged environment as the service reads it. */
export interface SurfacesOn {
  slack: boolean;
  linear: boolean;
}

/** Slack is on with its bot token; Linear with an API key or access token and the webhook secret (docs/configuration.md). */
export function surfacesOn(env: Readonly<Record<string, string | undefined>>): SurfacesOn {
  return {
    slack: env['SLACK_BOT_TOKEN'] !== undefined,
    linear: (env['LINEAR_API_KEY'] !== undefined || env['LINEAR_ACCESS_TOKEN'] !== undefined) && env['LINEAR_WEBHOOK_SECRET'] !== undefined,
  };
}

const TURN_SLACK_ON = 'turn Slack on with SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode)';
const TURN_LINEAR_ON = 'turn Linear on with LINEAR_API_KEY (or LINEAR_ACCESS_TOKEN) and LINEAR_WEBHOOK_SECRET';

type SurfaceRoutes = Record<string, { slack_channel?: string | undefined; approval?: FileApproval | undefined }>;

/** Every surface route that may name a Slack channel or ask for approval, with its key path. */
function surfaceRoutes(file: FileConfig): Array<{ path: PropertyKey[]; route: SurfaceRoutes[string] }> {
  const sections: Array<[PropertyKey[], SurfaceRoutes]> = [
    [['slack', 'channels'], file.slack.channels],
    [['linear', 'labels'], file.linear.labels],
    [['jira', 'labels'], file.jira.labels],
    [['github', 'repos'], file.github.repos],
    [['github', 'labels'], file.github.labels],
  ];
  return sections.flatMap(([path, routes]) => Object.entries(routes).map(([key, route]) => ({ path: [...path, key], route })));
}

/**
 * The problems of places on surfaces that are off, each at its key path in `label` (the file as the
 * other problems name it): a schedule's `notify.slack_channel` and `notify.linear_issue`, a route's
 * `slack_channel`, and a route's `approval` (approvers are asked in Slack). A route of a surface that
 * is itself off is checked too: turning that surface on later must not start a bridge that cannot work.
 */
export function placesOnSurfacesOff(file: FileConfig, on: SurfacesOn, label: string): ConfigProblem[] {
  const at = (path: PropertyKey[]) => `${label}: ${formatPath(path)}`;
  const problems: ConfigProblem[] = [];
  file.schedules.forEach((schedule, index) => {
    const path = ['schedules', index, 'notify'];
    if (!on.slack && schedule.notify.slack_channel !== undefined) {
      problems.push({
        where: at([...path, 'slack_channel']),
        message: `schedule "${schedule.name}" reports to a Slack channel, but Slack is off (SLACK_BOT_TOKEN is not set): every message of its runs would fail`,
        hint: `${TURN_SLACK_ON}, or remove notify.slack_channel`,
      });
    }
    if (!on.linear && schedule.notify.linear_issue !== undefined) {
      problems.push({
        where: at([...path, 'linear_issue']),
        message: `schedule "${schedule.name}" reports to a Linear issue, but Linear is off: every comment of its runs would fail`,
        hint: `${TURN_LINEAR_ON}, or remove notify.linear_issue`,
      });
    }
  });
  if (on.slack) return problems;
  for (const { path, route } of surfaceRoutes(file)) {
    if (route.slack_channel !== undefined) {
      problems.push({
        where: at([...path, 'slack_channel']),
        message: 'names a Slack channel for its runs, but Slack is off (SLACK_BOT_TOKEN is not set): nothing could be posted there',
        hint: `${TURN_SLACK_ON}, or remove slack_channel`,
      });
    }
    if (route.approval !== undefined) {
      problems.push({
        where: at([...path, 'approval']),
        message: 'needs Slack: approvers are asked there (SLACK_BOT_TOKEN is not set)',
        hint: `${TURN_SLACK_ON}, or remove approval`,
      });
    }
  }
  return problems;
}
