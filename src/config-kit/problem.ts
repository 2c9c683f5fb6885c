/**
 * A configuration problem as every part of the config states it: what is wrong, where (an environment
 * variable or `<file>: <key path>`), and what to do. No problem text ever contains a secret value.
 */

export interface ConfigProblem {
  /** `AGENT_API_KEY`, or `agent-bridge.yml: tracker.interval`. */
  where: string;
  message: string;
  hint?: string;
}

/** `schedules[1].cron`, `slack.channels.C0123.config`, `linear.labels["needs agent"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z0-9_-]+$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/** Marker the strict objects put in their unknown-key message, read back when the issue becomes a problem. */
export const ALLOWED_KEYS_PREFIX = 'allowed keys here: ';
