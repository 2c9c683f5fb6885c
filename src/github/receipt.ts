import type { OutboxMessage } from '../core/ports/messages.js';
import type { NewOutboxRow } from '../core/ports/store.js';
import type { TriggerInput } from '../core/ports/triggers.js';

/**
 * 👀 on the comment that steers or stops a run, owed on receipt: with its trigger, or once its
 * requester is cleared (`write-access.ts`) — before the run API is asked either way (🚀 follows once it
 * took the follow-up). A start's 👀 comes with its "received" row.
 */
export function seenRows(input: TriggerInput): NewOutboxRow[] {
  if (input.kind === 'start') return [];
  const reference = 'reference' in input.payload ? input.payload.reference : undefined;
  if (reference === undefined) return [];
  return [{ key: `seen:${input.key}`, destination: input.anchor, kind: 'seen', payload: { kind: 'seen', reference } satisfies OutboxMessage }];
}
