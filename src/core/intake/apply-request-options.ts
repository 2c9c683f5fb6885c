import type { OutboxMessage } from '../ports/messages.js';
import type { NewOutboxRow, StoredTrigger } from '../ports/store.js';
import type { StartPayload } from '../ports/triggers.js';
import { optionsRefusal, splitRequestOptions } from '../request-options.js';
import type { Surfaces } from '../surfaces.js';
import { failureMessages } from './intake-messages.js';
import { withRequestOptions, type ResolvedRoute } from './routing.js';

/** A start request with its options applied, or refused with what people are owed. */
export type OptionsOutcome = { kind: 'ok'; route: ResolvedRoute; payload: StartPayload } | { kind: 'refused'; reason: string; owed: NewOutboxRow[] };

/**
 * Reads the `[env=… model=… skill=…]` options at the start of a start request's prompt and checks
 * them against the route's `overrides`. Allowed options go into the run's config and leave
 * the prompt; options that cannot be read or are not allowed start nothing: the person who asked is
 * told privately what is allowed (where the surface speaks privately; elsewhere the failure
 * says it), and the status message says the run was not started.
 */
export function applyRequestOptions(trigger: StoredTrigger, payload: StartPayload, route: ResolvedRoute, surfaces: Surfaces): OptionsOutcome {
  const split = splitRequestOptions(payload.prompt);
  if (split.kind === 'none') return { kind: 'ok', route, payload };
  let reason: string | undefined;
  if (split.kind === 'invalid') reason = `The options ${split.block} could not be read: ${split.problem}. No run was started.`;
  else if (route.kind === 'factory') reason = 'This route hands requests to a factory, which takes no options. No run was started.';
  else reason = optionsRefusal(split.options, route.overrides);
  if (reason === undefined && split.kind === 'options') {
    if (split.text === '') return refused(trigger, 'The request holds options but nothing to do. No run was started.', surfaces);
    return { kind: 'ok', route: withRequestOptions(route, split.options), payload: { ...payload, prompt: split.text } };
  }
  return refused(trigger, reason ?? 'The options could not be used. No run was started.', surfaces);
}

function refused(trigger: StoredTrigger, reason: string, surfaces: Surfaces): OptionsOutcome {
  const requester = trigger.payload.requester?.id;
  // Only a surface that speaks privately shows a note to one person; elsewhere the failure message itself carries the reason.
  if (requester === undefined || !surfaces.speaksPrivately(trigger.anchor))
    return { kind: 'refused', reason, owed: failureMessages(trigger, reason.replace(/ No run was started\.$/, '')) };
  const note: NewOutboxRow = {
    key: `notice:options:${trigger.key}`,
    destination: trigger.anchor,
    kind: 'notice',
    payload: { kind: 'notice', text: reason, privateTo: requester } satisfies OutboxMessage,
  };
  return {
    kind: 'refused',
    reason,
    owed: [note, ...failureMessages(trigger, 'the options in the request are not allowed here; the person who asked was told which are')],
  };
}
