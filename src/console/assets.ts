/**
 * The console's two static files, served from /console/assets (the only script the CSP allows). The
 * pages work without them; the script only refreshes what changed.
 */

export const CONSOLE_CSS = `
:root { color-scheme: light dark; --muted: #6b7280; --line: #d1d5db; --bad: #b91c1c; --good: #15803d; --accent: #1d4ed8; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; }
header { display: flex; gap: 1.25rem; align-items: center; padding: .6rem 1.25rem; border-bottom: 1px solid var(--line); }
header .brand { font-weight: 700; }
header nav a { margin-right: 1rem; text-decoration: none; color: var(--accent); }
header nav a[aria-current="page"] { font-weight: 700; text-decoration: underline; }
header form { margin-left: auto; }
main { padding: 1rem 1.25rem; max-width: 1200px; }
h1 { font-size: 1.3rem; margin: .2rem 0 1rem; }
h2 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; unicode-bidi: isolate; }
th { font-weight: 600; color: var(--muted); }
.muted { color: var(--muted); }
.state { font-weight: 600; font-family: ui-monospace, monospace; }
.state-SUCCEEDED, .ok { color: var(--good); }
.state-FAILED, .state-ERROR, .state-failed, .bad { color: var(--bad); }
form.inline { display: inline; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin-bottom: 1rem; }
.filters label { display: flex; flex-direction: column; font-size: .8rem; color: var(--muted); }
input, select, button { font: inherit; padding: .25rem .5rem; }
button { cursor: pointer; }
pre.prompt { white-space: pre-wrap; border-left: 3px solid var(--line); padding: .5rem .75rem; margin: 0; unicode-bidi: isolate; }
.flash { padding: .5rem .75rem; border: 1px solid var(--line); margin-bottom: 1rem; }
.sign-in { max-width: 26rem; margin: 4rem auto; }
.sign-in input { width: 100%; margin: .25rem 0 .75rem; }
a.button { display: inline-block; padding: .4rem .9rem; border: 1px solid var(--line); border-radius: 4px; text-decoration: none; font-weight: 600; color: var(--accent); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dt { color: var(--muted); }
dd { margin: 0; }
form.new-run label { display: block; margin: 0 0 .75rem; font-size: .85rem; color: var(--muted); }
form.new-run textarea, form.new-run input, form.new-run select { display: block; width: 100%; max-width: 48rem; margin-top: .2rem; color: inherit; }
h1 a.button { font-size: .85rem; margin-left: .75rem; vertical-align: middle; }
svg.chart { color: var(--accent); max-width: 720px; display: block; margin: .5rem 0 1rem; }
`;

export const CONSOLE_JS = `
// Refreshes the page's <main> from the server every few seconds, without a reload; never while the
// person is typing in a form, never while the tab is hidden.
(function () {
  var main = document.querySelector('main[data-refresh]');
  if (!main) return;
  var seconds = Number(main.getAttribute('data-refresh')) || 5;
  function busy() {
    var active = document.activeElement;
    return active && active.closest && active.closest('main form');
  }
  function refresh() {
    if (document.hidden || busy()) return;
    fetch(location.href, { headers: { 'x-console-refresh': '1' }, credentials: 'same-origin', redirect: 'manual' })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (text) {
        if (!text) return;
        var next = new DOMParser().parseFromString(text, 'text/html').querySelector('main[data-refresh]');
        if (next && next.innerHTML !== main.innerHTML && !busy()) {
          main.innerHTML = next.innerHTML;
          document.documentElement.setAttribute('data-refreshed', String(Date.now()));
        }
      })
      .catch(function () {});
  }
  setInterval(refresh, seconds * 1000);
})();
`;
