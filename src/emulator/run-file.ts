/**
 * Keeps an emulator's runs in a JSON file across restarts (the service's built-in emulator keeps them
 * beside its database): loaded once at start, then written after every change — coalesced to one
 * write per turn of the event loop, to a temporary file renamed over the last, so a crash leaves
 * either the old file or the new one whole. A run that was on its way when the process stopped takes
 * its next step again after the start (`RunEngine.importRuns`).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RunEngine } from './run-engine.js';
import type { RunRecord } from './run-record.js';

const VERSION = 1;

export interface RunFile {
  /** How many runs were taken back from the file at start. */
  loaded: number;
  /** Writes the runs now if a change is waiting (at shutdown). */
  flush(): void;
  /** Stops watching the engine (the file stays). */
  stop(): void;
}

/** Looks like a run record this module wrote: enough to show and move it, whatever else it carries. */
function isRecord(value: unknown): value is RunRecord {
  if (!value || typeof value !== 'object') return false;
  const record = value as Partial<Record<keyof RunRecord, unknown>>;
  return (
    typeof record.id === 'string' &&
    typeof record.seq === 'number' &&
    typeof record.state === 'string' &&
    typeof record.prompt === 'string' &&
    Array.isArray(record.history) &&
    Array.isArray(record.plan) &&
    Array.isArray(record.followups) &&
    Array.isArray(record.artifacts) &&
    typeof record.script === 'object' &&
    record.script !== null
  );
}

/** The runs saved in `path`; a file that is not one of ours is moved aside (`onProblem` says so) rather than overwritten. */
function load(path: string, onProblem: (message: string) => void): RunRecord[] {
  if (!existsSync(path)) return [];
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown; runs?: unknown };
    if (parsed.version !== VERSION || !Array.isArray(parsed.runs)) throw new Error(`not a version ${VERSION} file of emulator runs`);
    return parsed.runs.filter(isRecord);
  } catch (error) {
    const aside = `${path}.unreadable-${Date.now()}`;
    renameSync(path, aside);
    onProblem(
      `could not read the emulator's runs from ${path} (${error instanceof Error ? error.message : String(error)}); moved it to ${aside} and started without them`,
    );
    return [];
  }
}

/** Loads `engine`'s runs from `path` and saves them there after every change; `onProblem` hears what could not be read or written. */
export function keepRunsInFile(engine: RunEngine, path: string, onProblem: (message: string) => void): RunFile {
  const saved = load(path, onProblem);
  engine.importRuns(saved);
  let waiting: NodeJS.Immediate | undefined;
  const write = () => {
    if (waiting) clearImmediate(waiting);
    waiting = undefined;
    try {
      mkdirSync(dirname(path), { recursive: true });
      const temporary = `${path}.tmp`;
      writeFileSync(temporary, JSON.stringify({ version: VERSION, runs: engine.exportRuns() }));
      renameSync(temporary, path);
    } catch (error) {
      onProblem(`could not save the emulator's runs to ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const unwatch = engine.watch(() => {
    waiting ??= setImmediate(write);
  });
  return {
    loaded: saved.length,
    flush: () => {
      if (waiting) write();
    },
    stop: unwatch,
  };
}
