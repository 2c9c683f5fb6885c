/**
 * What people hear when a request is over a limit: nothing started, which limit,
 * its value, and when it frees up — privately to the asker where the surface can speak to one person
 * (as a refused key is told: `intake/key-messages.ts`), and in the place the request was made, whose
 * status message turns into "could not start". Keyed per trigger, so each is owed once.
 */
import type { OutboxMessage } from '../ports/messages.js';
import type { NewOutboxRow, ReservationOutcome, StoredTrigger } from '../ports/store.js';
import type { Surfaces } from '../surfaces.js';
import { failureMessages } from '../intake/intake-messages.js';
import { nextUtcMonthStart, utcDayStart } from './limits.js';

type Refusal = Extract<ReservationOutcome, { reserved: false }>;

const DAY_MS = 86_400_000;

/** The limit in words: "3 runs at once", "20 runs a day (UTC)", "250 credits a month (UTC)". */
function limitWords(refusal: Refusal): string {
  const runs = refusal.value === 1 ? 'run' : 'runs';
  if (refusal.limit === 'concurrent') return `${refusal.value} ${runs} at once`;
  if (refusal.limit === 'per_day') return `${refusal.value} ${runs} a day (UTC)`;
  return `${refusal.value} credits a month (UTC; ${refusal.used} used)`;
}

/** Where it is configured, so an operator can find it. */
function configKey(refusal: Refusal, routeName: string): string {
  return refusal.scope === 'person' ? `limits.per_person.${refusal.limit}` : `limits.${refusal.limit} of route "${routeName}"`;
}

/** When there is room again: a run ending, the next UTC midnight, or the 1st of next month. */
function freesUp(refusal: Refusal, now: number, whose: string): string {
  if (refusal.limit === 'concurrent') return `when one of ${whose} runs ends`;
  if (refusal.limit === 'per_day') return `at ${utc(utcDayStart(now) + DAY_MS)}`;
  return `on ${utc(nextUtcMonthStart(now))}`;
}

function utc(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The asker's own words: "you have reached your limit of …" or "the route … has reached its limit of …". */
function privateText(refusal: Refusal, routeName: string, now: number): string {
  const reached =
    refusal.scope === 'person'
      ? `you have reached your limit of ${limitWords(refusal)}; it frees up ${freesUp(refusal, now, 'your')}`
      : `the route "${routeName}" has reached its limit of ${limitWords(refusal)}; it frees up ${freesUp(refusal, now, 'its')}`;
  return `No run was started: ${reached} (${configKey(refusal, routeName)}).`;
}

/** The place's words: the same facts about whoever asked. */
function publicReason(refusal: Refusal, routeName: string, now: number): string {
  return refusal.scope === 'person'
    ? `the person who asked has reached their limit of ${limitWords(refusal)}; it frees up ${freesUp(refusal, now, 'their')} (${configKey(refusal, routeName)})`
    : `the route "${routeName}" has reached its limit of ${limitWords(refusal)}; it frees up ${freesUp(refusal, now, 'its')} (${configKey(refusal, routeName)})`;
}

/** The messages owed for a start over a limit. */
export function limitMessages(trigger: StoredTrigger, refusal: Refusal, routeName: string, now: number, surfaces: Surfaces): NewOutboxRow[] {
  const requester = trigger.payload.requester?.id;
  const owed: NewOutboxRow[] = [];
  if (requester !== undefined && surfaces.speaksPrivately(trigger.anchor)) {
    owed.push({
      key: `notice:limit:${trigger.key}`,
      destination: trigger.anchor,
      kind: 'notice',
      payload: { kind: 'notice', text: privateText(refusal, routeName, now), privateTo: requester } satisfies OutboxMessage,
    });
  }
  return [...owed, ...failureMessages(trigger, publicReason(refusal, routeName, now))];
}
