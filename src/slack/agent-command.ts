import type { TrackedRun } from '../core/ports/store.js';
import { titleFrom } from '../core/title.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import { plainSlackText } from './slack-text.js';

/** `/agent …`: only `status`, `help` and `cancel` as the first word are subcommands; anything else is a prompt. */
export type AgentCommand = { kind: 'help' } | { kind: 'status' } | { kind: 'cancel'; runId: string | undefined } | { kind: 'prompt'; text: string };

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
export function cancelCommandTrigger(run: TrackedRun, user: string, triggerId: string): TriggerInput {
  return {
    kind: 'cancel',
    key: `slack:cmd:${triggerId}`,
    source: 'slack',
    anchor: run.anchor,
    payload: { runId: run.runId, requester: { platform: 'slack', id: user, name: `<@${user}>` } },
  };
}

/**
 * `/agent <prompt>` from a channel: the run reports at the channel itself, where its status message
 * becomes a top-level message whose thread is then linked to the run (see SlackNotifier's
 * `onThreadStarted`), so replies there steer it like any other thread.
 */
export function promptCommandTrigger(command: { channel_id: string; user_id: string; trigger_id: string }, typed: string): TriggerInput {
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
      requester: { platform: 'slack', id: command.user_id, name: `<@${command.user_id}>` },
    },
  };
}
