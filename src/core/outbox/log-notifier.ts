import type { Logger } from '../ports/logger.js';
import type { OutboxMessage } from '../ports/messages.js';
import type { Delivery, Notifier } from '../ports/notifier.js';
import { renderText } from './render-text.js';

/**
 * The notifier for `log:` destinations: runs nobody asked for from a chat or issue (the CLI,
 * schedules without `notify`). It writes one info line per message, so an operator can still follow
 * such runs. Writing a log line cannot usefully fail, so it never rejects; delivering a row twice
 * (after a crash) writes the line twice, which the outbox key in it makes recognisable.
 */
export class LogNotifier implements Notifier {
  readonly platform = 'log';

  constructor(private readonly logger: Logger) {}

  deliver(delivery: Delivery): Promise<unknown> {
    const { message } = delivery;
    this.logger.info({ destination: delivery.destination, kind: message.kind, ...runFields(message), outboxKey: delivery.key }, renderText(message));
    return Promise.resolve({ logged: true });
  }
}

/** The run id and state a message is about, when it is about a run. */
function runFields(message: OutboxMessage): { runId?: string; state?: string } {
  switch (message.kind) {
    case 'status':
    case 'stopping':
    case 'announce':
      return { runId: message.run.runId, state: message.run.state };
    case 'followup_accepted':
      return { runId: message.runId };
    default:
      return {};
  }
}
