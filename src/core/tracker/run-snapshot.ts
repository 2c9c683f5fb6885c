/**
 * The one place that turns a run as the API reports it into a run as people see it, so the tracker
 * (which stores it in outbox payloads) and the notifiers (which render it) never disagree.
 */
import type { RunItem } from '../ports/agent-runs.js';
import type { RunSnapshot } from '../ports/messages.js';

/**
 * The status message's text, whichever shape the API sent: a plain string, or
 * `{message, error_code?}` shown as `message (error_code)`. Undefined when there is nothing to show.
 */
export function statusText(status: RunItem['status_message']): string | undefined {
  if (typeof status === 'string') return status.trim() === '' ? undefined : status;
  if (status === null || typeof status !== 'object') return undefined;
  // Read defensively: the field comes from a server that may send more (or less) than documented.
  const message = typeof status.message === 'string' ? status.message : '';
  const code = typeof status.error_code === 'string' && status.error_code !== '' ? status.error_code : undefined;
  if (message === '' && code === undefined) return undefined;
  if (code === undefined) return message;
  return message === '' ? `(${code})` : `${message} (${code})`;
}

/** URLs of the run's pull requests, in the order the API lists them. */
export function pullRequestUrls(artifacts: RunItem['artifacts']): string[] {
  if (!Array.isArray(artifacts)) return [];
  const urls: string[] = [];
  for (const artifact of artifacts) {
    if (artifact?.artifact_type !== 'PULL_REQUEST') continue;
    const url = artifact.data?.['url'];
    if (typeof url === 'string' && url !== '') urls.push(url);
  }
  return urls;
}

/**
 * The snapshot of `run` people see. `fallbackTitle` (usually the title we stored when the run was
 * requested) is used when the API sends no title.
 */
export function toSnapshot(run: RunItem, fallbackTitle: string): RunSnapshot {
  const snapshot: RunSnapshot = {
    runId: run.run_id,
    title: typeof run.title === 'string' && run.title.trim() !== '' ? run.title : fallbackTitle,
    state: run.state,
    pullRequests: pullRequestUrls(run.artifacts),
  };
  const text = statusText(run.status_message);
  if (text !== undefined) snapshot.statusText = text;
  if (typeof run.session_link === 'string' && run.session_link !== '') snapshot.sessionLink = run.session_link;
  return snapshot;
}
