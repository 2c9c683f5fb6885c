/**
 * The HTML pages a session link opens: one page per session and an index of runs. Prompts and
 * messages come from users, so every value is escaped; links are only made from http(s) URLs.
 */
import { isTerminalState, type RunItem, type StatusMessage } from '../core/ports/agent-runs.js';
import type { FollowupEntry, HistoryEntry } from './run-record.js';

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function statusText(message: string | StatusMessage | null | undefined): string {
  if (message === null || message === undefined) return '';
  if (typeof message === 'string') return message;
  return message.error_code ? `${message.message} (${message.error_code})` : message.message;
}

function safeLink(url: unknown, label: string): string {
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) return escapeHtml(label);
  return `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>`;
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
pre{background:#f5f5f5;padding:1rem;white-space:pre-wrap;overflow-wrap:anywhere}
table{border-collapse:collapse}td,th{padding:.25rem .75rem;border-bottom:1px solid #ddd;text-align:left}
.state{font-weight:600;font-family:monospace}.muted{color:#777}`;

function layout(title: string, body: string, refresh: boolean): string {
  // Pages of live runs refresh themselves so a demo can watch a run progress.
  const meta = refresh ? '<meta http-equiv="refresh" content="2">' : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">${meta}<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>
`;
}

/** The page of one session: title, prompt, current state, state history, follow-ups, artifacts. */
export function renderSessionPage(run: RunItem, history: HistoryEntry[], followups: FollowupEntry[]): string {
  const rows = history
    .map(
      (h) =>
        `<tr><td class="muted">${escapeHtml(h.at)}</td><td class="state">${escapeHtml(h.state)}</td><td>${escapeHtml(statusText(h.status_message))}</td></tr>`,
    )
    .join('\n');
  const followupItems = followups.length
    ? `<ul>${followups.map((f) => `<li><span class="muted">${escapeHtml(f.at)}</span> ${escapeHtml(f.message)}</li>`).join('')}</ul>`
    : '<p class="muted">None yet.</p>';
  const artifacts = (run.artifacts ?? [])
    .map((a) => {
      const url = a.data?.['url'];
      return `<li>${escapeHtml(a.artifact_type)}: ${safeLink(url, typeof url === 'string' ? url : JSON.stringify(a.data ?? {}))}</li>`;
    })
    .join('');
  const body = `<p class="muted"><a href="/">All runs</a> · emulated session ${escapeHtml(run.session_id ?? '')}</p>
<h1>${escapeHtml(run.title ?? run.run_id)}</h1>
<p>Run <code>${escapeHtml(run.run_id)}</code> is <span class="state">${escapeHtml(run.state)}</span>
<span class="muted">${escapeHtml(statusText(run.status_message))}</span></p>
<h2>Prompt</h2>
<pre>${escapeHtml(run.prompt ?? '')}</pre>
<h2>History</h2>
<table><thead><tr><th>At</th><th>State</th><th>Status</th></tr></thead><tbody>
${rows}
</tbody></table>
<h2>Follow-ups</h2>
${followupItems}
${artifacts ? `<h2>Artifacts</h2><ul>${artifacts}</ul>` : ''}`;
  return layout(`${run.title ?? run.run_id} — ${run.state}`, body, !isTerminalState(run.state));
}

/** The index at `/`: every run, newest first, linked to its session once it has one. */
export function renderIndex(runs: RunItem[]): string {
  const rows = runs
    .map((run) => {
      const title = run.session_id ? `<a href="/sessions/${encodeURIComponent(run.session_id)}">${escapeHtml(run.title)}</a>` : escapeHtml(run.title);
      return `<tr><td class="muted">${escapeHtml(run.created_at)}</td><td>${title}</td><td class="state">${escapeHtml(run.state)}</td><td><code>${escapeHtml(run.run_id)}</code></td></tr>`;
    })
    .join('\n');
  const body = `<h1>Cloud Agent Run API emulator</h1>
<p class="muted">API under <code>/api/v1</code>; testing endpoints under <code>/_emulator</code>.</p>
${runs.length ? `<table><thead><tr><th>Created</th><th>Title</th><th>State</th><th>Run</th></tr></thead><tbody>\n${rows}\n</tbody></table>` : '<p>No runs yet.</p>'}`;
  return layout(
    'Run API emulator',
    body,
    runs.some((r) => !isTerminalState(r.state)),
  );
}

/** The page for a session id the emulator does not know. */
export function renderNotFound(sessionId: string): string {
  return layout(
    'Session not found',
    `<h1>Session not found</h1><p>No run has session <code>${escapeHtml(sessionId)}</code>.</p><p><a href="/">All runs</a></p>`,
    false,
  );
}
