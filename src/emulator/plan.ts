/**
 * Timings and the planned progression of a run: which states follow which, after how long, given
 * its script. Kept apart from the engine so the progression can be read in one place.
 */
import type { RunScript } from './script.js';

/** One step of a run's planned progression: enter `state` `afterMs` after the previous step. */
export interface PlannedStep {
  state: string;
  afterMs: number;
  /** Outcome steps carry the pull-request artifact of `emulate: pr`. */
  pullRequest?: boolean;
}

export interface Timings {
  queuedMs: number;
  pendingMs: number;
  claimedMs: number;
  workMs: number;
}

export const DEFAULT_TIMINGS: Timings = { queuedMs: 300, pendingMs: 300, claimedMs: 300, workMs: 2000 };

/** The end of a work period: BLOCKED (once), a scripted failure, or success. */
export function outcomeStep(script: RunScript, timings: Timings, allowBlock: boolean): PlannedStep {
  const afterMs = script.slowMs ?? timings.workMs;
  if (allowBlock && script.block) return { state: 'BLOCKED', afterMs };
  if (script.outcome?.kind === 'fail') return { state: 'FAILED', afterMs };
  if (script.outcome?.kind === 'error') return { state: 'ERROR', afterMs };
  return script.pr ? { state: 'SUCCEEDED', afterMs, pullRequest: true } : { state: 'SUCCEEDED', afterMs };
}

/**
 * The steps after QUEUED: PENDING, CLAIMED, any scripted pass-through states (one work period
 * each), INPROGRESS, then the outcome.
 */
export function planFromQueued(script: RunScript, timings: Timings, allowBlock: boolean): PlannedStep[] {
  const steps: PlannedStep[] = [
    { state: 'PENDING', afterMs: timings.queuedMs },
    { state: 'CLAIMED', afterMs: timings.pendingMs },
  ];
  let wait = timings.claimedMs;
  for (const state of script.passThrough) {
    steps.push({ state, afterMs: wait });
    wait = timings.workMs;
  }
  steps.push({ state: 'INPROGRESS', afterMs: wait });
  steps.push(outcomeStep(script, timings, allowBlock));
  return steps;
}
