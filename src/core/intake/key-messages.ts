/**
 * What people are told when a request cannot run under the asker's own key: they have none
 * while `people.attribution` is `personal_required`, or the run API refused theirs (401/403). The
 * person hears it privately where the surface can speak to one person, with how to connect a
 * key; the place the request was made hears that nothing started or was sent and why — never the key.
 * Keyed per trigger, so a retried trigger owes each message once.
 */
import type { OutboxMessage } from '../ports/messages.js';
import type { NewOutboxRow, StoredTrigger } from '../ports/store.js';
import type { Surfaces } from '../surfaces.js';
import { failureMessages, notice } from './intake-messages.js';

/** Why a request did not run: no key connected, or the run API refused the key (with its HTTP status). */
export type KeyProblem = { kind: 'no_key' } | { kind: 'refused'; status: number };

/** What the request was, in words: a follow-up may come as a start (a mention in a thread with a run). */
type Asked = 'start' | 'followup' | 'cancel';

const NOT_DONE: Record<Asked, string> = {
  start: 'No run was started',
  followup: 'Your message was not sent to the run',
  cancel: 'The run was not stopped',
};

const PUBLIC_NOT_DONE: Record<Asked, string> = {
  start: 'the run could not start',
  followup: 'the follow-up was not sent',
  cancel: 'the run was not stopped',
};

function privateText(asked: Asked, problem: KeyProblem, howToConnect: string): string {
  const why =
    problem.kind === 'no_key'
      ? 'this workspace runs the agent under each person’s own API key, and you have not connected one'
      : `the run API refused your personal API key (${problem.status}): it may have been revoked, have expired or lack access`;
  const fix = problem.kind === 'no_key' ? 'Connect yours' : 'Connect a working key';
  return `${NOT_DONE[asked]}: ${why}. ${fix}: ${howToConnect}.`;
}

function publicReason(problem: KeyProblem): string {
  return problem.kind === 'no_key'
    ? 'the person who asked has no personal API key connected, which this workspace requires'
    : 'the run API refused the personal API key of the person who asked';
}

/**
 * The messages owed for a request that did not run because of the asker's key. `asked` is what was
 * attempted (a start trigger may have become a follow-up).
 */
export function keyProblemMessages(trigger: StoredTrigger, asked: Asked, problem: KeyProblem, howToConnect: string, surfaces: Surfaces): NewOutboxRow[] {
  const requester = trigger.payload.requester?.id;
  const privately = requester !== undefined && surfaces.speaksPrivately(trigger.anchor);
  const owed: NewOutboxRow[] = [];
  if (privately) {
    owed.push({
      key: `notice:key:${trigger.key}`,
      destination: trigger.anchor,
      kind: 'notice',
      payload: { kind: 'notice', text: privateText(asked, problem, howToConnect), privateTo: requester } satisfies OutboxMessage,
    });
  }
  // Where nobody can be told privately, the place itself says how to connect a key.
  const reason = privately ? publicReason(problem) : `${publicReason(problem)}; connect one with ${howToConnect}`;
  // A start's status message ("received") turns into "could not start" wherever it was shown.
  if (trigger.kind === 'start' && asked === 'start') return [...owed, ...failureMessages(trigger, reason)];
  // Refusing someone's follow-up or stop for want of a key is their business: where the surface can, only they hear it.
  if (problem.kind === 'no_key' && privately) return owed;
  const text = `${PUBLIC_NOT_DONE[asked].replace(/^./, (first) => first.toUpperCase())}: ${reason}.`;
  return [...owed, notice(trigger, 'key-refused', text)];
}
