import type { PromptEnricher } from '../ports/intake.js';
import type { NewOutboxRow, StoredTrigger } from '../ports/store.js';
import type { StartPayload } from '../ports/triggers.js';
import { failureMessages } from './intake-messages.js';

/** A start request with its words in it, or refused with what people are owed. */
export type ReadOutcome = { kind: 'ok'; payload: StartPayload } | { kind: 'refused'; reason: string; owed: NewOutboxRow[] };

/**
 * Fills in a request the edge could only point at (`requestToRead`: a chat reaction names a message,
 * not its words) by asking the edge's enricher, here in the worker because it calls the platform. A
 * request that cannot be one (the message is gone, empty, or an app's) starts nothing and its status
 * message says why; a platform that cannot be reached throws, and the trigger is retried.
 */
export async function fillRequest(trigger: StoredTrigger, payload: StartPayload, enricher: PromptEnricher | undefined): Promise<ReadOutcome> {
  if (!payload.requestToRead) return { kind: 'ok', payload };
  const read = enricher?.readRequest
    ? await enricher.readRequest(trigger, payload)
    : { kind: 'refused' as const, reason: 'the request could not be read here' };
  if (read.kind === 'refused') return { kind: 'refused', reason: read.reason, owed: failureMessages(trigger, read.reason) };
  // Read once per attempt: the stored trigger keeps pointing at the message.
  return { kind: 'ok', payload: { ...payload, prompt: read.prompt, title: read.title, requestToRead: false } };
}
