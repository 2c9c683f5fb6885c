/**
 * Jira as the core sees it (the `Surface` port): its places are issues (`jira:<ISSUE-KEY>`),
 * where the bridge comments and edits its start comment in place; it does not react (Jira comments have
 * no reactions through REST), nothing there is private to one person, and an issue is one
 * conversation (no thread per run). Registered in `compose/surfaces.ts`.
 */
import type { Route } from '../core/intake/routing.js';
import type { Surface } from '../core/ports/surface.js';

const CONVERSATION = /^jira:[A-Za-z][A-Za-z0-9_]*-\d+$/;

/** The Jira surface; `labels` are `jira.labels` (lower-cased label name → route). */
export function jiraSurface(labels: Readonly<Record<string, Route>>): Surface<Route> {
  return {
    name: 'jira',
    title: 'Jira',
    can: { editInPlace: true, react: false, speakPrivately: false, thread: false },
    isConversation: (destination) => CONVERSATION.test(destination),
    route: (origin) => (origin.label === undefined ? undefined : labels[origin.label.toLowerCase()]),
    // Account ids: `5b10ac8d82e05b22cc7d4ef5`, or `557058:f58131cb-…` (a prefix, a colon, a UUID).
    users: { idPattern: /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}(?::[A-Za-z0-9-]{1,64})?$/, example: '5b10ac8d82e05b22cc7d4ef5' },
  };
}
