/**
 * The notifier for `linear-session:<agentSessionId>` destinations: a run started from Linear's agent
 * platform speaks as the session's activities. The first `thought` goes out as soon as the trigger is
 * stored (Linear marks an agent unresponsive after 10 s); every observed state is a `thought`; success
 * is a `response` with the session and pull-request links, failure an `error` with the status message,
 * BLOCKED an `elicitation`. A stop is acknowledged with an ephemeral `thought` only: the CANCELLED
 * `response` that follows is the one lasting activity, and says who. The session's external URL
 * points at the run's session once it is known.
 *
 * Exactly once: every activity is created under an id derived from its outbox key; a retried create
 * whose id Linear already has (answered as an input error) counts as delivered.
 */
import { NotifierError, unknownMessageKind, type Delivery, type Notifier } from '../core/ports/notifier.js';
import type { OutboxMessage, RunSnapshot } from '../core/ports/messages.js';
import { renderText } from '../core/outbox/render-text.js';
import type { LinearApi } from './linear-api.js';
import { isInvalidInput, toLinearNotifierError } from './linear-errors.js';
import { inertMarkdown, inertMessage, inertRun, markdownCode } from '../surface-kit/markdown.js';
import type { OwnIds } from './own-ids.js';
import type { WorkflowMover } from './workflow-states.js';

type ActivityType = 'thought' | 'response' | 'error' | 'elicitation';

/** What a delivered `received` row reports: the issue the session is about (its id; older rows only the identifier). */
interface SessionStart {
  issueId?: string;
  identifier?: string;
}

/** Parses `linear-session:<id>`; throws a permanent NotifierError otherwise. */
export function parseSessionDestination(destination: string): string {
  const match = /^linear-session:([A-Za-z0-9-]{1,100})$/.exec(destination);
  if (!match?.[1])
    throw new NotifierError(`not a Linear agent-session destination: ${destination.slice(0, 100)}`, { code: 'bad_destination', retryable: false });
  return match[1];
}

function activityOf(message: OutboxMessage): { type: ActivityType; body: string; ephemeral?: true } {
  switch (message.kind) {
    case 'received':
      return { type: 'thought', body: `Received — starting a run for ${inertMarkdown(message.title)}…` };
    case 'status':
      return { type: 'thought', body: statusLine(message.run) };
    case 'stopping':
      return {
        type: 'thought',
        body: `Stopping the run${message.requestedBy ? ` (requested by ${inertMarkdown(message.requestedBy)})` : ''}…`,
        ephemeral: true,
      };
    case 'announce': {
      const text = renderText(inertMessage(message));
      if (message.run.state === 'SUCCEEDED') return { type: 'response', body: text };
      if (message.run.state === 'BLOCKED') return { type: 'elicitation', body: text.replace('Reply in this thread to answer.', 'Reply here to answer.') };
      if (message.run.state === 'CANCELLED') return { type: 'response', body: text };
      return { type: 'error', body: text };
    }
    case 'failed':
      return { type: 'error', body: renderText(inertMessage(message)) };
    case 'followup_accepted':
      return { type: 'thought', body: 'Sent your message to the run.' };
    case 'seen':
      return { type: 'thought', body: 'Received your message.', ephemeral: true };
    case 'notice':
      return { type: 'thought', body: renderText(inertMessage(message)) };
    case 'session':
      return { type: 'thought', body: renderText(inertMessage(message)), ephemeral: true };
    case 'approval':
      return { type: 'thought', body: renderText(inertMessage(message)) };
    default:
      throw unknownMessageKind(message);
  }
}

function statusLine(run: RunSnapshot): string {
  const safe = inertRun(run);
  return `Run ${markdownCode(run.runId)} is ${safe.state}${safe.statusText ? ` — ${safe.statusText}` : ''}`;
}

export class LinearSessionNotifier implements Notifier {
  readonly platform = 'linear-session';

  constructor(private readonly options: { api: LinearApi; ids: OwnIds; workflow?: WorkflowMover }) {}

  async deliver(delivery: Delivery): Promise<unknown> {
    const sessionId = parseSessionDestination(delivery.destination);
    const { message } = delivery;
    try {
      const activity = activityOf(message);
      const id = this.options.ids.idFor(delivery.key);
      try {
        await this.options.api.createActivity({
          id,
          agentSessionId: sessionId,
          content: { type: activity.type, body: activity.body },
          ...(activity.ephemeral && { ephemeral: true }),
        });
      } catch (error) {
        if (!(delivery.attempt > 0 && isInvalidInput(error))) throw error;
      }
      if (message.kind === 'status' || message.kind === 'announce') {
        if (message.run.sessionLink) await this.options.api.setSessionLink(sessionId, message.run.sessionLink);
        const start = (await delivery.resultOf(message.receivedKey)) as SessionStart | undefined;
        const issue = start?.issueId ?? start?.identifier;
        if (issue && this.options.workflow?.enabled) await this.options.workflow.onRun(message.run, issue);
      }
      if (message.kind === 'received') {
        const { issueId, identifier } = (message.reference ?? {}) as { issueId?: unknown; identifier?: unknown };
        return { activityId: id, ...(typeof issueId === 'string' && { issueId }), ...(typeof identifier === 'string' && { identifier }) };
      }
      return { activityId: id };
    } catch (error) {
      throw toLinearNotifierError(error, message.kind);
    }
  }
}
