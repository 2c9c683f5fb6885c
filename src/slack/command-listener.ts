/**
 * `/agent`: help, connect, whoami, disconnect, status, cancel, or a prompt. Answers are the command's
 * own HTTP response (ephemeral): no Slack call from the listener.
 */
import { slackUserRefusal } from './access.js';
import {
  AGENT_HELP,
  cancelCommandTrigger,
  connectText,
  disconnectText,
  parseAgentCommand,
  promptCommandTrigger,
  statusText,
  whoamiText,
} from './agent-command.js';
import { cancelGrant, cancelRefusal, starterOf } from './cancel-permission.js';
import { checkSlashCommand, refusedCommandText } from './command-form.js';
import { republishHomeAfterKeyRemoved } from './home-refresh.js';
import { commandOrgs } from './slack-person.js';
import type { SubmitTrigger } from './listener-submit.js';
import type { ListenerDeps } from './listener-deps.js';
import type { ListenerApp } from './event-router.js';

type CommandDeps = Pick<ListenerDeps, 'access' | 'keyPageUrl' | 'personKeys' | 'audit' | 'now' | 'trackedRuns' | 'triggers' | 'admins' | 'intake' | 'settings'>;
type CommandArgs = Parameters<Parameters<ListenerApp['command']>[1]>[0];

/** Registers `/agent`. */
export function registerAgentCommand(app: ListenerApp, deps: CommandDeps, submit: SubmitTrigger): void {
  app.command('/agent', async ({ command, ack, context }) => {
    // HTTP requests were checked before Bolt (inspect-request); Socket Mode commands are checked here.
    const form = checkSlashCommand(command);
    if (!form.ok) return ack({ response_type: 'ephemeral', text: refusedCommandText(form) });
    const say = (text: string) => ack({ response_type: 'ephemeral', text });
    return say(await agentCommandAnswer(deps, submit, command, context));
  });
}

/** What `/agent …` answers, having stored what it asks for. */
async function agentCommandAnswer(deps: CommandDeps, submit: SubmitTrigger, command: CommandArgs['command'], context: CommandArgs['context']): Promise<string> {
  const parsed = parseAgentCommand(command.text ?? '');
  const person = { id: command.user_id, orgs: commandOrgs(command) };
  const refusal = slackUserRefusal(deps.access, person);
  if (parsed.kind === 'help') return AGENT_HELP;
  // Before status too: someone not allowed to use the bot sees no runs.
  if (refusal) return refusal;
  if (parsed.kind === 'connect') return connectText(command.user_id, deps.keyPageUrl);
  if (parsed.kind === 'whoami') return whoamiText(await deps.personKeys.get(command.user_id), deps.now());
  if (parsed.kind === 'disconnect') {
    const removed = await deps.personKeys.remove(command.user_id);
    if (removed) {
      const now = deps.now();
      await deps.audit.record({ at: now, act: 'key.removed', personId: command.user_id, surface: 'slack', onceKey: `slack:disconnect:${command.trigger_id}` });
    }
    // The Home tab says whether the key is connected: republished now for someone who looks at it.
    if (removed) await republishHomeAfterKeyRemoved(deps, command.user_id, deps.now());
    return disconnectText(removed);
  }
  if (parsed.kind === 'status') return statusText(await deps.trackedRuns.listTrackedByAnchorPrefix(`slack:${command.channel_id}:`, 20), deps.now());
  if (parsed.kind === 'cancel') {
    if (!parsed.runId) return 'Which run? Use `/agent cancel <run-id>`; `/agent status` lists them.';
    const run = await deps.trackedRuns.get(parsed.runId);
    if (!run || !run.anchor.startsWith('slack:')) return `I do not know a run \`${parsed.runId}\` started from Slack.`;
    const starter = run.triggerKey ? starterOf(await deps.triggers.getByKey(run.triggerKey)) : undefined;
    if (!cancelGrant({ user: command.user_id, channel: command.channel_id }, run, starter, deps.admins)) return cancelRefusal(run.runId, run, starter);
    await submit(cancelCommandTrigger(run, person, command.trigger_id), context);
    return `Stopping \`${run.runId}\`; its thread will say when it has stopped.`;
  }
  await submit(promptCommandTrigger(command, parsed.text), context);
  return 'On it: the run’s status is posted in this channel; reply in its thread to steer it.';
}
