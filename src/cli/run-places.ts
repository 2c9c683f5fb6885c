import { existsSync } from 'node:fs';
import { loadConfig } from '../config/index.js';
import { openStore } from '../store/open-store.js';
import { SURFACE_MODULES } from '../surface-list.js';
import type { CliContext } from './context.js';

/**
 * Where a run lives besides the run API (a run may be carried by a chat thread and an issue at once):
 * the places agent-bridge keeps for it in its database, in words.
 */

/** A place (an anchor or outbox destination) in words, as its surface words it: `slack:C1:1700.1` → `Slack thread 1700.1 in C1`. */
export function placeLabel(place: string): string {
  for (const module of SURFACE_MODULES) {
    const label = module.placeLabel(place);
    if (label !== undefined) return label;
  }
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
