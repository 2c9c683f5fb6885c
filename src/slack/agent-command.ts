import type { TrackedRun } from '../core/ports/store.js';
import { titleFrom } from '../core/title.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import { slackRequester, type SlackPerson } from './access.js';
import { commandOrgs } from './slack-person.js';
import { plainSlackText } from './slack-text.js';

/**
 * `/agent …`: only `status`, `help`, `cancel`, `connect`, `disconnect` and `whoami` as the first word
 * are subcommands; anything else is a prompt.
 */
export type AgentCommand =
  | { kind: 'help' }
  | { kind: 'status' }
  | { kind: 'cancel'; runId: string | undefined }
  | { kind: 'connect' }
  | { kind: 'disconnect' }
  | { kind: 'whoami' }
  | { kind: 'prompt'; text: string };

export function parseAgentCommand(text: string): AgentCommand {
  const trimmed = text.trim();
  const [first = '', ...rest] = trimmed.split(/\s+/);
  switch (first.toLowerCase()) {
    case '':
    case 'help':
      return { kind: 'help' };
    case 'status':
      return { kind: 'status' };
    case 'cancel':
      return { kind: 'cancel', runId: rest[0] };
    // Alone only: "connect the billing service" is a request, not a subcommand.
    case 'connect':
    case 'disconnect':
    case 'whoami':
      return rest.length === 0 ? { kind: first.toLowerCase() as 'connect' | 'disconnect' | 'whoami' } : { kind: 'prompt', text: trimmed };
    default:
      return { kind: 'prompt', text: trimmed };
  }
}

export const AGENT_HELP = [
  '*agent-bridge* hands work to a cloud coding agent and reports back in the thread.',
  '• Mention me with what to do: `@agent fix the flaky login test` (or send me a direct message).',
  '• Reply in the thread to steer the run; `@agent stop` or the *Cancel* button stops it.',
  '• `/agent status` lists this channel’s active runs.',
  '• `/agent cancel <run-id>` stops a run: from its channel, one you started, or any as an admin.',
  '• `/agent connect` links the page where you connect your own API key, so runs you ask for are yours; `/agent whoami` says whether one is connected; `/agent disconnect` removes it.',
  '• `/agent help` shows this.',
].join('\n');

function age(fromMs: number, nowMs: number): string {
  const minutes = Math.max(0, Math.round((nowMs - fromMs) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}

/** The ephemeral answer to `/agent status`: title, state, age and link of each active run. */
export function statusText(runs: TrackedRun[], nowMs: number): string {
  if (runs.length === 0) return 'No active runs in this channel.';
  const lines = runs.map((run) => {
    const link = run.sessionLink ? ` — <${run.sessionLink}|open session>` : '';
    const title = (run.title ?? run.runId).replace(/[&<>]/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[character] ?? character);
    return `• *${title}* — ${run.state} — ${age(run.createdAt, nowMs)}${link} (\`${run.runId}\`)`;
  });
  return [`Active runs in this channel (${runs.length}):`, ...lines].join('\n');
}

/** The cancel trigger for `/agent cancel <run-id>`: it names the run, whichever thread it lives in. */
export function cancelCommandTrigger(run: TrackedRun, person: SlackPerson, triggerId: string): TriggerInput {
  return {
    kind: 'cancel',
    key: `slack:cmd:${triggerId}`,
    source: 'slack',
    anchor: run.anchor,
    payload: { runId: run.runId, requester: slackRequester(person) },
  };
}

/**
 * `/agent <prompt>` from a channel: the run reports at the channel itself, where its status message
 * becomes a top-level message whose thread is then linked to the run (see SlackNotifier's
 * `onThreadStarted`), so replies there steer it like any other thread.
 */
export function promptCommandTrigger(
  command: { channel_id: string; user_id: string; trigger_id: string; team_id?: string; enterprise_id?: string },
  typed: string,
): TriggerInput {
  // Slack escapes a command's text like a message's.
  const text = plainSlackText(typed);
  return {
    kind: 'start',
    key: `slack:cmd:${command.trigger_id}`,
    source: 'slack',
    anchor: `slack:${command.channel_id}:cmd-${command.trigger_id}`,
    payload: {
      prompt: text,
      title: titleFrom(text),
      origin: { source: 'slack', channel: command.channel_id },
      destinations: [`slack:${command.channel_id}`],
      requester: slackRequester({ id: command.user_id, orgs: commandOrgs(command) }),
    },
  };
}

/**
 * The private answer to `/agent connect`. The key is pasted on the console, never in Slack (whose
 * servers would keep it). Until Sign in with Slack exists, a console admin sets it for the person.
 */
export function connectText(user: string, pageUrl: string | undefined): string {
  const where = pageUrl
    ? `<${pageUrl}|your key page in the web console>`
    : 'your key page in the web console (/console/my-key; PUBLIC_URL is not set, so I cannot link it)';
  return [
    `Connect your personal API key on ${where}: sign in there with Slack and paste it — never paste it here: Slack would keep a copy.`,
    `Where Sign in with Slack is not set up, a console admin connects it for your Slack user ID \`${user}\`. It is checked with the run API before it is saved, and only its last 4 characters are ever shown.`,
  ].join('\n');
}

/** The private answer to `/agent whoami`: whether a key is connected, its last 4, when, and when last used. */
export function whoamiText(key: { lastFour: string; connectedAt: number; lastUsedAt: number | null } | undefined, nowMs: number): string {
  if (!key)
    return 'No personal API key is connected: runs you ask for use the service’s key (or are refused, if this service requires your own). `/agent connect` says how to connect one.';
  const used = key.lastUsedAt === null ? 'not used yet' : `last used ${age(key.lastUsedAt, nowMs)} ago`;
  return `Your personal API key ending in \`${key.lastFour}\` is connected (connected ${age(key.connectedAt, nowMs)} ago, ${used}). \`/agent disconnect\` removes it.`;
}

/** The private answer to `/agent disconnect`. */
export function disconnectText(removed: boolean): string {
  return removed
    ? 'Your personal API key is removed from this service. Runs you ask for from now on use the service’s key (or are refused, if this service requires your own). Revoke the key in the run API too if you no longer need it.'
    : 'No personal API key was connected, so there was nothing to remove.';
}
