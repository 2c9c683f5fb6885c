import { html, link, type SafeHtml } from './html.js';

/**
 * Where a run was asked for, as a link when the anchor says enough: a Slack thread's permalink, a
 * Linear or Jira issue, a GitHub issue or pull request (its URL from the trigger when known), a
 * schedule's entry on the schedules page.
 */
export function place(anchor: string, source: string, ticketUrl?: string): SafeHtml {
  const slack = /^slack:([A-Z0-9]+):(\d+)\.(\d+)$/.exec(anchor);
  if (slack) return link(`https://slack.com/archives/${slack[1]}/p${slack[2]}${slack[3]}`, `Slack thread in ${slack[1]}`);
  const channel = /^slack:([A-Z0-9]+)$/.exec(anchor);
  if (channel) return link(`https://slack.com/archives/${channel[1]}`, `Slack channel ${channel[1]} (a thread of its own)`);
  if (anchor.startsWith('linear:')) return link(ticketUrl, `Linear issue ${anchor.slice('linear:'.length)}`);
  // An issue or a pull request; linked when the trigger knew its URL (the host may be GitHub Enterprise Server).
  const github = /^github:([^/\s]+\/[^#\s]+)#(\d+)$/.exec(anchor);
  if (github) return link(ticketUrl, `GitHub ${github[1]}#${github[2]}`);
  if (anchor.startsWith('jira:')) return link(ticketUrl, `Jira issue ${anchor.slice('jira:'.length)}`);
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
