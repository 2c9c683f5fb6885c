/**
 * What a tracked run's stored route says about how it is shown: the request's own options
 * and how much is announced. The route is stored as JSON with the run, so it is read defensively: a
 * run stored before these fields existed shows no options and announces as it always did.
 */
import { isTerminalState } from '../ports/agent-runs.js';
import { ANNOUNCED_STATES } from '../ports/messages.js';
import { describeOptions, OPTION_FIELDS, type RequestOptions } from '../request-options.js';
import type { Announce } from '../intake/routing.js';

/** The options the request set (`env=… model=…`), if any. */
export function requestOptionsOf(route: unknown): string | undefined {
  const options = (route as { options?: unknown } | null | undefined)?.options;
  if (options === null || typeof options !== 'object') return undefined;
  const known: RequestOptions = {};
  for (const field of OPTION_FIELDS) {
    const value = (options as Record<string, unknown>)[field];
    if (typeof value === 'string') known[field] = value;
  }
  const shown = describeOptions(known);
  return shown === '' ? undefined : shown;
}

/** The route's `announce`, `blocked_and_end` when unset or unknown. */
export function announceOf(route: unknown): Announce {
  const announce = (route as { announce?: unknown } | null | undefined)?.announce;
  return announce === 'end' || announce === 'all' ? announce : 'blocked_and_end';
}

/**
 * Whether a newly observed state gets a new message besides the status edit: every state with `all`,
 * only the ends with `end`, BLOCKED and the ends otherwise (docs/architecture.md §6 "Announced once").
 */
export function isAnnounced(announce: Announce, state: string): boolean {
  if (announce === 'all') return true;
  if (announce === 'end') return isTerminalState(state);
  return ANNOUNCED_STATES.has(state);
}
