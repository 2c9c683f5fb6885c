import type { RunItem, StatusMessage } from '../core/ports/agent-runs.js';

/** "3s", "5m", "2h", "4d": how long ago `iso` was, relative to `now`. */
export function formatAge(iso: string | null | undefined, now: number): string {
  if (!iso) return '-';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '-';
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** The status message's text, whichever shape the API used: a string, or `{message, error_code?}` as `message (error_code)`. */
export function statusText(status: string | StatusMessage | null | undefined): string | undefined {
  if (status === null || status === undefined) return undefined;
  if (typeof status === 'string') return status || undefined;
  const message = typeof status.message === 'string' ? status.message : '';
  if (!status.error_code) return message || undefined;
  return message ? `${message} (${status.error_code})` : `(${status.error_code})`;
}

/** Links of every PULL_REQUEST artifact. */
export function pullRequestLinks(run: RunItem): string[] {
  return (run.artifacts ?? []).flatMap((artifact) => {
    const url = artifact.artifact_type === 'PULL_REQUEST' ? artifact.data?.['url'] : undefined;
    return typeof url === 'string' ? [url] : [];
  });
}

function truncate(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

/** A plain-text table; the last column is not padded. */
export function renderTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** The `runs list` table: id, state, title, name, age. */
export function renderRunTable(runs: RunItem[], now: number): string {
  if (runs.length === 0) return 'No runs.';
  const rows = runs.map((run) => [run.run_id, run.state, truncate(run.title ?? '', 50), run.agent_config?.name ?? '-', formatAge(run.created_at, now)]);
  return renderTable(['ID', 'STATE', 'TITLE', 'NAME', 'AGE'], rows);
}

/** The `runs get` view: everything a person asks about one run. */
export function renderRunDetails(run: RunItem, now: number): string {
  const lines: Array<[string, string | undefined]> = [
    ['Run', run.run_id],
    ['Title', run.title ?? undefined],
    ['State', run.state],
    ['Status', statusText(run.status_message)],
    ['Created', run.created_at ? `${run.created_at} (${formatAge(run.created_at, now)} ago)` : undefined],
    ['Updated', run.updated_at ?? undefined],
    ['Started', run.started_at ?? undefined],
    ['Config name', run.agent_config?.name],
    ['Model', run.agent_config?.model_id],
    ['Environment', run.agent_config?.environment_id],
    ['Session', run.session_link ?? undefined],
  ];
  const out = lines.filter(([, value]) => value !== undefined && value !== '').map(([label, value]) => `${`${label}:`.padEnd(14)}${value}`);
  const pullRequests = pullRequestLinks(run);
  for (const url of pullRequests) out.push(`${'Pull request:'.padEnd(14)}${url}`);
  const others = (run.artifacts ?? []).filter((artifact) => artifact.artifact_type !== 'PULL_REQUEST');
  for (const artifact of others) out.push(`${'Artifact:'.padEnd(14)}${artifact.artifact_type}`);
  if (run.prompt) {
    out.push('Prompt:');
    out.push(...run.prompt.split('\n').map((line) => `  ${line}`));
  }
  return out.join('\n');
}
