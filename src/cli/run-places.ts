import { existsSync } from 'node:fs';
import { loadConfig } from '../config/index.js';
import { openStore } from '../store/open-store.js';
import type { CliContext } from './context.js';

/**
 * Where a run lives besides the run API (issue 21: a run may be carried by a Slack thread and a
 * Linear issue at once): the places agent-bridge keeps for it in its database, in words.
 */

/** A place (an anchor or outbox destination) in words: `slack:C1:1700.1` → `Slack thread 1700.1 in C1`. */
export function placeLabel(place: string): string {
  const thread = /^slack:([A-Z0-9]+):(\d+\.\d+)$/i.exec(place);
  if (thread) return `Slack thread ${thread[2]} in ${thread[1]}`;
  const channel = /^slack:([A-Z0-9]+)$/i.exec(place);
  if (channel) return `Slack channel ${channel[1]} (a thread of its own)`;
  const home = /^slack:home:([A-Z0-9]+)$/i.exec(place);
  if (home) return `Slack Home tab of ${home[1]}`;
  if (place.startsWith('linear-session:')) return `Linear agent session ${place.slice('linear-session:'.length)}`;
  if (place.startsWith('linear:')) return `Linear issue ${place.slice('linear:'.length)}`;
  const github = /^github:([^/\s]+\/[^#\s]+)#(\d+)$/.exec(place);
  if (github) return `GitHub issue or pull request ${github[1]}#${github[2]}`;
  if (place.startsWith('jira:')) return `Jira issue ${place.slice('jira:'.length)}`;
  if (place.startsWith('log:console:')) return `the console's New run (the service log, ${place})`;
  if (place.startsWith('log:cli:')) return `agent-bridge run (the service log, ${place})`;
  return place;
}

/**
 * The run's places from the service's database (the one the config names), or undefined when there
 * is none to read: no database yet, a config that does not load, or a run this bridge did not start.
 * Never creates a database.
 */
export async function runPlaces(context: CliContext, runId: string): Promise<string[] | undefined> {
  let database;
  try {
    database = loadConfig({ env: context.env, cwd: context.cwd, delivers: false }).database;
  } catch {
    return undefined;
  }
  if (database.kind === 'sqlite' && (database.path === ':memory:' || !existsSync(database.path))) return undefined;
  const store = await openStore(database).catch(() => undefined);
  if (!store) return undefined;
  try {
    const run = await store.trackedRuns.get(runId);
    return run ? [...new Set([run.anchor, ...run.destinations])] : undefined;
  } finally {
    await store.close();
  }
}
