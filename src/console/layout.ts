import type { Viewer } from './deps.js';
import { html, type SafeHtml } from './html.js';
import { MY_KEY_PATH } from '../people/key-page.js';

export type Section = 'runs' | 'attention' | 'schedules' | 'usage' | 'health' | 'keys' | 'audit' | 'me';

/** Each section's label, path, and whether only admins may open it. */
const SECTIONS: Array<[Section, string, string, 'admins' | 'everyone']> = [
  ['runs', 'Runs', '/console/runs', 'everyone'],
  ['attention', 'Needs attention', '/console/attention', 'admins'],
  ['schedules', 'Schedules', '/console/schedules', 'admins'],
  ['usage', 'Usage', '/console/usage', 'admins'],
  ['health', 'Health', '/console/health', 'admins'],
  ['keys', 'Keys', '/console/keys', 'admins'],
  ['audit', 'Audit', '/console/audit', 'admins'],
  ['me', 'Your key', MY_KEY_PATH, 'everyone'],
];

/**
 * A page of a signed-in person: the navigation, sign-out (with its CSRF token), and `body` in a
 * refreshing <main>. With `viewer`, the navigation shows only what they may open (admins' pages for
 * admins, "Your key" for people signed in with Slack); without, the admin's.
 */
export function page(options: {
  title: string;
  section: Section;
  csrf: string;
  body: SafeHtml;
  viewer?: Pick<Viewer, 'admin' | 'person'>;
  flash?: string | undefined;
  /** How often the script refreshes <main> (default 5 s); 0: never (a page with a form people fill in). */
  refreshSeconds?: number;
  /** Reload the whole page this often, without script (a page that waits for something to exist, then leads there). */
  reloadSeconds?: number;
}): SafeHtml {
  const viewer = options.viewer ?? { admin: true };
  const shown = SECTIONS.filter(([section, , , who]) => (section === 'me' ? viewer.person !== undefined : who === 'everyone' || viewer.admin));
  const refresh = options.refreshSeconds ?? 5;
  const nav = shown.map(([section, label, href]) => html`<a href="${href}" ${section === options.section ? html` aria-current="page"` : ''}>${label}</a>`);
  return document(
    options.title,
    html`<header>
        <span class="brand">agent-bridge</span>
        <nav>${nav}</nav>
        ${viewer.person ? html`<span class="muted" data-testid="signed-in-as"><bdi>${viewer.person.name}</bdi>${viewer.admin ? ' (admin)' : ''}</span>` : ''}
        <form class="inline" method="post" action="/console/sign-out">
          <input type="hidden" name="csrf" value="${options.csrf}" />
          <button type="submit">Sign out</button>
        </form>
      </header>
      <main ${refresh > 0 ? html`data-refresh="${refresh}"` : ''}>
        ${options.flash ? html`<p class="flash" role="status">${options.flash}</p>` : ''} ${options.body}
      </main>`,
    options.reloadSeconds,
  );
}

/** The bare HTML document: the stylesheet and the one script, both from /console/assets; reloaded every `reloadSeconds` when given. */
export function document(title: string, content: SafeHtml, reloadSeconds?: number): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        ${reloadSeconds ? html`<meta http-equiv="refresh" content="${reloadSeconds}" />` : ''}
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · agent-bridge</title>
        <link rel="stylesheet" href="/console/assets/console.css" />
        <script src="/console/assets/console.js" defer></script>
      </head>
      <body>
        ${content}
      </body>
    </html>`;
}

/** A time as people read it in the console: UTC, to the second. */
export function when(at: number | null | undefined): string {
  if (at === null || at === undefined) return '—';
  return new Date(at)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
}

/** A POST button with its CSRF token and hidden fields. */
export function action(path: string, label: string, csrf: string, fields: Record<string, string | number>): SafeHtml {
  const hidden = Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`);
  return html`<form class="inline" method="post" action="${path}">
    <input type="hidden" name="csrf" value="${csrf}" />${hidden}<button type="submit">${label}</button>
  </form>`;
}
