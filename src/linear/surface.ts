/**
 * Linear as the core sees it (the `Surface` port): its places are issues (`linear:<issue>`),
 * where the bridge comments and reacts; nothing there is private to one person, and an issue is one
 * conversation (no thread per run). Registered by the composition root (`compose/surfaces.ts`).
 */
import type { Route } from '../core/intake/routing.js';
import type { Surface } from '../core/ports/surface.js';

/** An issue; not an agent session's activity view (`linear-session:…` is another notifier's prefix). */
const CONVERSATION = /^linear:[^:]+$/;

/** The Linear surface; `labels` are `linear.labels` (lower-cased label name → route). */
export function linearSurface(labels: Readonly<Record<string, Route>>): Surface<Route> {
  return {
    name: 'linear',
    title: 'Linear',
    can: { editInPlace: true, react: true, speakPrivately: false, thread: false },
    isConversation: (destination) => CONVERSATION.test(destination),
    // Linear user ids are UUIDs (checked by shape: letters and digits in 8-4-4-4-12 groups).
    users: {
      idPattern: /^[0-9a-z]{8}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{12}$/,
      example: '0a1b2c3d-0000-4000-8000-000000000000',
      normalise: (id) => id.toLowerCase(),
    },
    route: (origin) => (origin.label === undefined ? undefined : labels[origin.label.toLowerCase()]),
    // A comment on the issue reaches the schedule's latest run (the intake worker follows the alias).
    scheduleNotify: (notify) => (notify['linearIssue'] ? `linear:${notify['linearIssue']}` : undefined),
  };
}
