import type { SlackCalls } from './slack-calls.js';
import { isTerminalState } from '../core/ports/agent-runs.js';
import type { Delivery, Notifier } from '../core/ports/notifier.js';
import { assistantContextSetting, assistantThreadSetting } from './setting-names.js';
import type { NewOutboxRow, SettingRepository } from '../core/ports/store.js';
import type { TriggerInput } from '../core/ports/triggers.js';
import { toNotifierError } from './slack-errors.js';

/** The outbox row kind that shows the suggested prompts of a newly opened assistant thread. */
export const ASSISTANT_PROMPTS_KIND = 'assistant_prompts';

/** What the panel suggests when a person opens it (Slack shows at most four). */
export const SUGGESTED_PROMPTS = [
  { title: 'Fix a failing test', message: 'Find out why the test suite fails on main and open a pull request that fixes it.' },
  { title: 'Update dependencies', message: 'Update the outdated dependencies and open a pull request.' },
  { title: 'Explain some code', message: 'Explain how the request handling of this repository works, with links to the files.' },
] as const;

/** The status the panel shows while a run works (Slack shows it as "<app name> is working on it…"). */
export const WORKING_STATUS = 'is working on it…';

/**
 * The outbox destination of an assistant thread's panel status and prompts; without a thread, the
 * prompts of a DM's Messages tab (Slack's agent messaging experience, agent-view.ts).
 */
export function assistantDestination(channel: string, threadTs?: string): string {
  return threadTs === undefined ? `slack:assistant:${channel}` : `slack:assistant:${channel}:${threadTs}`;
}

const THREAD = /^slack:assistant:(D[A-Z0-9]{2,40}):(\d{1,12}\.\d{1,12})$/;
const MESSAGES_TAB = /^slack:assistant:(D[A-Z0-9]{2,40})$/;

/** An assistant thread as `assistant_thread_started` and `assistant_thread_context_changed` describe it. */
export interface AssistantThread {
  user: string;
  channel: string;
  threadTs: string;
  /** The channel the person is looking at beside the panel, when it is a channel ('' otherwise: a DM, nothing). */
  contextChannel: string;
}

/** The `assistant_thread` of an assistant event, read defensively; undefined when it is not Slack's shape. */
export function readAssistantThread(event: unknown): AssistantThread | undefined {
  const thread = (typeof event === 'object' && event !== null ? (event as Record<string, unknown>)['assistant_thread'] : undefined) as
    Record<string, unknown> | undefined;
  if (typeof thread !== 'object' || thread === null) return undefined;
  const { user_id: user, channel_id: channel, thread_ts: threadTs, context } = thread;
  if (typeof user !== 'string' || typeof channel !== 'string' || typeof threadTs !== 'string') return undefined;
  if (!THREAD.test(assistantDestination(channel, threadTs)) || !/^[UW][A-Z0-9]{2,40}$/.test(user)) return undefined;
  const viewed = typeof context === 'object' && context !== null ? (context as Record<string, unknown>)['channel_id'] : undefined;
  return { user, channel, threadTs, contextChannel: typeof viewed === 'string' && /^[CG][A-Z0-9]{2,40}$/.test(viewed) ? viewed : '' };
}

/**
 * A request asked in an assistant thread routes as the route of the channel the person is looking at
 * (remembered from the thread's events) when that channel has its own `slack.channels` entry; else as
 * a direct message's, as before. Only the route changes: the run still reports in the thread.
 */
export async function withContextRoute(
  trigger: TriggerInput,
  settings: Pick<SettingRepository, 'get'>,
  routedChannels: ReadonlySet<string>,
): Promise<TriggerInput> {
  if (trigger.kind !== 'start' || trigger.payload.origin.source !== 'slack') return trigger;
  const [, channel, threadTs] = trigger.anchor.split(':');
  if (!channel || !threadTs || !THREAD.test(assistantDestination(channel, threadTs))) return trigger;
  const viewed = await settings.get(assistantContextSetting(channel, threadTs));
  if (!viewed || !routedChannels.has(viewed)) return trigger;
  return { ...trigger, payload: { ...trigger.payload, origin: { source: 'slack', channel: viewed } } };
}

/** The suggested prompts owed for a newly opened assistant thread, once per thread. */
export function promptsRow(channel: string, threadTs: string): NewOutboxRow {
  return {
    key: `assistant:prompts:${channel}:${threadTs}`,
    destination: assistantDestination(channel, threadTs),
    kind: ASSISTANT_PROMPTS_KIND,
    payload: { kind: ASSISTANT_PROMPTS_KIND },
  };
}

/**
 * A run asked in a direct-message thread also reports to that thread's panel status: the notifier
 * sets it only where the thread is an assistant thread someone opened (a plain DM thread has none).
 */
export function withAssistantStatus(trigger: TriggerInput): TriggerInput {
  if (trigger.kind !== 'start') return trigger;
  const [, channel, threadTs] = trigger.anchor.split(':');
  if (!channel || !threadTs || !THREAD.test(assistantDestination(channel, threadTs))) return trigger;
  const destination = assistantDestination(channel, threadTs);
  if (trigger.payload.destinations.includes(destination)) return trigger;
  return { ...trigger, payload: { ...trigger.payload, destinations: [...trigger.payload.destinations, destination] } };
}

/**
 * The assistant panel (`slack:assistant:<channel>:<thread ts>` destinations; apps installed with
 * `assistant_view`): suggested prompts when a thread opens (at `slack:assistant:<channel>`, those of a
 * DM's Messages tab under `agent_view`); while the thread's run works, `assistant.threads.setStatus`, cleared (an empty
 * status) when it ends, waits for a person (BLOCKED) or could not start. Slack also clears the status
 * when the app posts in the thread, so every non-final state sets it again.
 */
export class AssistantNotifier implements Notifier {
  readonly platform = 'slack';

  constructor(private readonly deps: { client: SlackCalls; settings: Pick<SettingRepository, 'get'> }) {}

  async deliver(delivery: Delivery): Promise<unknown> {
    const message = delivery.message as { kind: string; run?: { state?: unknown } };
    // An agent app's prompts belong to the Messages tab: Slack drops a call that names a thread.
    const tab = MESSAGES_TAB.exec(delivery.destination)?.[1];
    if (tab !== undefined && message.kind === ASSISTANT_PROMPTS_KIND) {
      await this.call('assistant.threads.setSuggestedPrompts', () =>
        this.deps.client.assistant.threads.setSuggestedPrompts({ channel_id: tab, prompts: [...SUGGESTED_PROMPTS] }),
      );
      return { prompts: SUGGESTED_PROMPTS.length };
    }
    const match = THREAD.exec(delivery.destination);
    if (!match?.[1] || !match[2]) return { skipped: 'not an assistant thread' };
    const [channel, threadTs] = [match[1], match[2]];
    if (message.kind === ASSISTANT_PROMPTS_KIND) {
      await this.call('assistant.threads.setSuggestedPrompts', () =>
        this.deps.client.assistant.threads.setSuggestedPrompts({ channel_id: channel, thread_ts: threadTs, prompts: [...SUGGESTED_PROMPTS] }),
      );
      return { prompts: SUGGESTED_PROMPTS.length };
    }
    const status = statusFor(message);
    if (status === undefined) return { status: 'unchanged' };
    // A plain DM thread has no panel: only threads someone opened as an assistant thread get a status.
    if ((await this.deps.settings.get(assistantThreadSetting(channel, threadTs))) === undefined) return { skipped: 'not an assistant thread' };
    await this.call('assistant.threads.setStatus', () => this.deps.client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status }));
    return { status };
  }

  private async call(method: string, send: () => Promise<unknown>): Promise<void> {
    try {
      await send();
    } catch (error) {
      throw toNotifierError(error, method);
    }
  }
}

/** The panel status a message calls for: working while a run works, empty once it ended, waits or failed. */
function statusFor(message: { kind: string; run?: { state?: unknown } }): string | undefined {
  if (message.kind === 'received') return WORKING_STATUS;
  if (message.kind === 'failed') return '';
  if (message.kind !== 'status') return undefined;
  const state = typeof message.run?.state === 'string' ? message.run.state : '';
  return isTerminalState(state) || state === 'BLOCKED' ? '' : WORKING_STATUS;
}
