import { SURFACE_MODULES } from '../surface-list.js';
import { html, link, type SafeHtml } from './html.js';

/**
 * Where a run was asked for, as a link when the anchor says enough — as its surface words it (a chat
 * thread's permalink, an issue, its URL from the trigger when known) — or a schedule's entry on the
 * schedules page.
 */
export function place(anchor: string, source: string, ticketUrl?: string): SafeHtml {
  for (const module of SURFACE_MODULES) {
    const shown = module.placeLink(anchor, ticketUrl);
    if (shown) return link(shown.url, shown.text);
  }
  const schedule = /^(?:log:)?schedule:([^:]+)/.exec(anchor);
  if (schedule || source === 'schedule') {
    const name = schedule?.[1] ?? anchor;
    return html`<a href="/console/schedules#schedule-${name}">schedule ${name}</a>`;
  }
  // The log places of requests with no conversation of their own: New run, and `agent-bridge run` handed to the service.
  if (anchor.startsWith('log:console:')) return html`the console (New run)`;
  if (anchor.startsWith('log:cli:')) return html`the command line`;
  return html`${anchor}`;
}

/** A person as the console shows them: the name, with the id beside it. */
export function person(requester: { id?: string | null; name?: string | null; platform?: string } | undefined | null): SafeHtml {
  if (!requester?.id && !requester?.name) return html`<span class="muted">—</span>`;
  return requester.name && requester.id
    ? html`<bdi>${requester.name}</bdi> <span class="muted">(${requester.id})</span>`
    : html`<bdi>${requester.name ?? requester.id}</bdi>`;
}
