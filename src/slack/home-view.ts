import type { KnownBlock, View } from '@slack/types';
import type { PersonKeyRecord, RunListItem } from '../core/ports/store.js';
import { formatCredits, type UsageFigures } from '../core/usage/usage-report.js';
import { escapeMrkdwn, safeUrl, stateLabel } from './blocks.js';

/** The Home tab's "Start a run" button. */
export const HOME_START_ACTION_ID = 'home_start_run';
/** The "Start a run" modal. */
export const START_RUN_CALLBACK_ID = 'start_run';
/** How many of a person's runs their Home tab lists, newest first. */
export const HOME_RUNS = 10;

/** The outbox destination that publishes a person's Home tab (`slack:home:<user id>`). */
export function homeDestination(user: string): string {
  return `slack:home:${user}`;
}

/** The user of a Home destination, if it is one. */
export function homeUserOf(destination: string): string | undefined {
  return /^slack:home:([UW][A-Z0-9]{2,40})$/.exec(destination)?.[1];
}

/** Where a run was asked, for people: its channel, or "a direct message". */
export function whereAsked(anchor: string): string {
  const channel = anchor.split(':')[1] ?? '';
  if (/^[CG][A-Z0-9]+$/.test(channel)) return `<#${channel}>`;
  return 'a direct message';
}

/** One run as a line of the Home tab (and of a link preview): title, state, where, session link. */
export function runLine(run: Pick<RunListItem, 'title' | 'runId' | 'state' | 'anchor' | 'sessionLink'>): string {
  const { emoji, label } = stateLabel({ kind: 'run', state: run.state });
  const session = safeUrl(run.sessionLink ?? undefined);
  const title = escapeMrkdwn(run.title ?? run.runId);
  return `*${title}*\n${emoji} ${label} · asked in ${whereAsked(run.anchor)}${session ? ` · <${session}|Open session>` : ''}`;
}

/**
 * What the Home tab says about the person's own API key: `attribution` is
 * `people.attribution`; `key` what may be shown of theirs (never the key: its last 4 characters).
 */
export interface HomeKeyStatus {
  attribution: string;
  key: Pick<PersonKeyRecord, 'lastFour' | 'connectedAt' | 'lastUsedAt'> | undefined;
  /** When the run API last refused that key (401/403), if it did since it was connected. */
  refused?: { at: number; status: number };
}

/** A time people read in their own timezone (Slack's date formatting), with a UTC fallback. */
function slackDate(epochMs: number): string {
  const seconds = Math.floor(epochMs / 1000);
  return `<!date^${seconds}^{date_short_pretty} at {time}|${new Date(epochMs).toISOString().slice(0, 16).replace('T', ' ')} UTC>`;
}

/**
 * The key line of the Home tab, or undefined when there is nothing to say: keys are not in use
 * (`service`) and the person has none.
 */
export function keyStatusText(status: HomeKeyStatus | undefined): string | undefined {
  if (!status || (status.attribution === 'service' && !status.key)) return undefined;
  const { key } = status;
  if (key && status.refused) {
    const { at, status: code } = status.refused;
    return `*Your API key:* ····${escapeMrkdwn(key.lastFour)} was refused by the run API (${code}) ${slackDate(at)}, so nothing you ask for runs with it. Connect a working key: type \`/agent connect\` for the link.`;
  }
  if (key) {
    const used = key.lastUsedAt === null ? 'not used yet' : `last used ${slackDate(key.lastUsedAt)}`;
    const whose =
      status.attribution === 'service' ? 'This service creates every run with its own key for now.' : 'Runs you ask for are created with it, in your name.';
    return `*Your API key:* connected ····${escapeMrkdwn(key.lastFour)} since ${slackDate(key.connectedAt)}, ${used}. ${whose} \`/agent disconnect\` removes it.`;
  }
  const without =
    status.attribution === 'personal_required' ? 'You need one to start runs here.' : 'Runs you ask for use the service’s key until you connect yours.';
  return `*Your API key:* not connected. ${without} Type \`/agent connect\` for the link to connect it (never paste a key into Slack).`;
}

/**
 * The Home tab: the person's recent runs, a Start a run button and, once personal keys are in use,
 * whether theirs is connected — or, for someone `slack.allowed_users` leaves out, the same refusal a
 * mention of theirs gets, and no button.
 */
export function homeView(runs: readonly RunListItem[], refusal: string | undefined, keyStatus?: HomeKeyStatus, usage?: UsageFigures): View {
  const blocks: KnownBlock[] = [{ type: 'header', text: { type: 'plain_text', text: 'agent-bridge' } }];
  if (refusal !== undefined) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(refusal) } });
    return { type: 'home', blocks };
  }
  blocks.push({
    type: 'actions',
    block_id: 'home_actions',
    elements: [{ type: 'button', action_id: HOME_START_ACTION_ID, style: 'primary', text: { type: 'plain_text', text: 'Start a run' } }],
  });
  const keyText = keyStatusText(keyStatus);
  if (keyText !== undefined) blocks.push({ type: 'section', block_id: 'home_key', text: { type: 'mrkdwn', text: keyText } });
  if (usage) blocks.push({ type: 'context', block_id: 'home_usage', elements: [{ type: 'mrkdwn', text: usageText(usage) }] });
  blocks.push({ type: 'section', text: { type: 'mrkdwn', text: runs.length === 0 ? 'You have not started any runs yet.' : '*Your recent runs*' } });
  for (const run of runs.slice(0, HOME_RUNS))
    blocks.push({ type: 'section', block_id: `run_${run.runId}`.slice(0, 255), text: { type: 'mrkdwn', text: runLine(run) } });
  return { type: 'home', blocks };
}

/** A person's own usage line: their runs and the credits they used in the last 30 days. */
export function usageText(usage: UsageFigures): string {
  const runs = usage.runs === 1 ? '1 run' : `${usage.runs} runs`;
  return `*Your usage, last 30 days:* ${runs}, ${formatCredits(usage.credits)} credits (inference ${formatCredits(usage.inferenceCost)}, compute ${formatCredits(usage.computeCost)}).`;
}

/** A route the modal offers: the channel whose route it is (`*` = the default), and its label. */
export interface RouteChoice {
  value: string;
  label: string;
}

/**
 * The routes a person may pick from: one per `slack.channels` entry, plus the default (`*` or
 * `defaults`). A run started from Home uses the route of the channel picked.
 */
export function routeChoices(channels: Readonly<Record<string, { config?: { name?: unknown } }>>): RouteChoice[] {
  const named = (value: string, text: string) => {
    const name = channels[value]?.config?.name;
    return typeof name === 'string' && name ? `${text} (${name})` : text;
  };
  const choices = Object.keys(channels)
    .filter((key) => key !== '*')
    .map((key) => ({ value: key, label: named(key, `as in ${key}`).slice(0, 75) }));
  return [{ value: '*', label: named('*', 'Default').slice(0, 75) }, ...choices];
}

/** The Start a run modal: the request, and the route when more than one is configured. */
export function startRunModal(choices: readonly RouteChoice[]): View {
  const blocks: KnownBlock[] = [
    {
      type: 'input',
      block_id: 'request',
      label: { type: 'plain_text', text: 'What should the agent do?' },
      element: { type: 'plain_text_input', action_id: 'text', multiline: true, max_length: 3000 },
    },
  ];
  if (choices.length > 1) {
    const options = choices.map((choice) => ({ value: choice.value, text: { type: 'plain_text' as const, text: choice.label } }));
    blocks.push({
      type: 'input',
      block_id: 'route',
      label: { type: 'plain_text', text: 'Route' },
      element: { type: 'static_select', action_id: 'route', options, initial_option: options[0] },
    });
  }
  return {
    type: 'modal',
    callback_id: START_RUN_CALLBACK_ID,
    title: { type: 'plain_text', text: 'Start a run' },
    submit: { type: 'plain_text', text: 'Start' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks,
  };
}
