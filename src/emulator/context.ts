/**
 * State shared by the emulator's route files, and the mapping of engine refusals to problems.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RunEngineError } from './engine-types.js';
import type { KeyRing, RunCreator, Visibility } from './keys.js';
import { ProblemError } from './problem.js';
import type { RunEngine } from './run-engine.js';
import type { FaultQueue, RequestLog } from './traffic.js';

export interface EmulatorContext {
  keys: KeyRing;
  /** `owner`: a key sees, follows up and cancels only the runs it created; `team`: every run. */
  visibility: Visibility;
  /** The caller of each authenticated API request (set before its route runs). */
  callers: WeakMap<IncomingMessage, RunCreator>;
  engine: RunEngine;
  faults: FaultQueue;
  requests: RequestLog;
  clock: { now(): Date };
  /** Answers held back by a `delay_ms` fault; cut when the emulator closes. */
  delayed: Set<{ timer: NodeJS.Timeout; res: ServerResponse; done: () => void }>;
}

/** Waits `ms` before answering, unless the client goes away or the emulator closes first. */
export function holdResponse(ctx: EmulatorContext, res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const entry = {
      res,
      timer: setTimeout(() => finish(), ms),
      done: () => finish(),
    };
    function finish(): void {
      clearTimeout(entry.timer);
      ctx.delayed.delete(entry);
      res.off('close', finish);
      resolve();
    }
    res.on('close', finish);
    ctx.delayed.add(entry);
  });
}

/** The creator runs of this request belong to: its authenticated caller (the service when unknown). */
export function callerOf(ctx: EmulatorContext, req: IncomingMessage): RunCreator {
  return ctx.callers.get(req) ?? ctx.keys.service;
}

/**
 * Throws the run API's 404 unless the caller may see the run: it exists and, in owner visibility,
 * was created with the caller's key. A run another key created is indistinguishable from no run.
 */
export function requireVisible(ctx: EmulatorContext, req: IncomingMessage, runId: string): void {
  const creator = ctx.engine.creatorOf(runId);
  if (!creator || (ctx.visibility === 'owner' && creator.uid !== callerOf(ctx, req).uid)) throw new ProblemError(404, `run ${runId} not found`);
}

/** Turns what a handler threw into the problem to answer; anything unexpected is a 500. */
export function toProblem(error: unknown): ProblemError {
  if (error instanceof ProblemError) return error;
  if (error instanceof RunEngineError) {
    if (error.code === 'not_found') return new ProblemError(404, error.message);
    if (error.code === 'conflict') return new ProblemError(409, error.message, { retryable: true });
    return new ProblemError(400, error.message);
  }
  return new ProblemError(500, 'the emulator failed to handle the request');
}
