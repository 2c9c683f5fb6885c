import type { OutboxMessage, RunSnapshot } from '../ports/messages.js';

/**
 * Plain, human text for a message owed to people: what the log notifier writes, and the fallback
 * text of chat messages (notifications, screen readers) and issue comments. The first line says
 * it all; the session link and pull requests follow on their own lines.
 */
export function renderText(message: OutboxMessage): string {
  switch (message.kind) {
    case 'received':
      return `Received: ${message.title} — starting a run…`;
    case 'status':
      return lines(`${message.run.title}: ${message.run.state}${message.run.statusText ? ` — ${message.run.statusText}` : ''}`, sessionLine(message.run));
    case 'stopping':
      return `${message.run.title}: stopping${message.requestedBy ? ` (requested by ${message.requestedBy})` : ''}…`;
    case 'announce':
      return renderAnnounce(message.run, message.cancelledBy);
    case 'failed':
      return `Could not start ${message.title}: ${message.reason}`;
    case 'followup_accepted':
      return `Follow-up delivered to run ${message.runId}`;
    case 'seen':
      return 'Received.';
    case 'notice':
      return message.text;
    case 'session':
      return `${message.title}: ${SESSION_WORDS[message.phase]}`;
    case 'approval':
      if (message.outcome) return `${message.title}: ${message.outcome === 'rejected' ? 'rejected' : 'expired without approval'}`;
      return `Waiting for approval: ${message.title}${message.requester ? ` (asked by ${message.requester})` : ''} on route ${message.route}. Expires ${new Date(message.expiresAt).toISOString().replace(/\.\d+Z$/, 'Z')}.`;
    default: {
      // Rows are stored JSON: one written by a newer version may carry a kind this one does not know.
      const unknown: never = message;
      return `(message of kind ${String((unknown as { kind?: unknown }).kind)})`;
    }
  }
}

const SESSION_WORDS = { working: 'working…', waiting: 'waiting for a person', idle: 'ready for the next request' } as const;

function renderAnnounce(run: RunSnapshot, cancelledBy: string | undefined): string {
  switch (run.state) {
    case 'SUCCEEDED':
      return lines(`✅ Done: ${run.title}`, sessionLine(run), ...run.pullRequests.map((url) => `Pull request: ${url}`));
    case 'FAILED':
    case 'ERROR': {
      const reason = run.statusText ? `: ${sentence(run.statusText)}` : '.';
      // Only point to the session when there is one to check.
      const advice = run.sessionLink ? 'Try: reply to continue, or check the session' : 'Try: reply to continue';
      return lines(`❌ ${run.title} ${run.state}${reason} ${advice}`, sessionLine(run));
    }
    case 'CANCELLED':
      return cancelledBy ? `Cancelled by ${cancelledBy}` : 'Cancelled';
    case 'BLOCKED': {
      const need = run.statusText ? `: ${sentence(run.statusText)}` : '.';
      return lines(`⏸ ${run.title} needs your input${need} Reply in this thread to answer.`, sessionLine(run));
    }
    default:
      // A state announced by a newer tracker: show it as it is (docs/architecture.md §7, unknown states).
      return lines(`${run.title}: ${run.state}${run.statusText ? ` — ${run.statusText}` : ''}`, sessionLine(run));
  }
}

function sessionLine(run: RunSnapshot): string | undefined {
  return run.sessionLink ? `Session: ${run.sessionLink}` : undefined;
}

/** Ends the text with one full stop unless it already ends a sentence (no "failed.. Try"). */
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function lines(...parts: Array<string | undefined>): string {
  return parts.filter((part): part is string => part !== undefined && part !== '').join('\n');
}
