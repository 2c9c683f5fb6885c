/**
 * Types of the run engine's in-process interface, and the error it throws for refused operations.
 */
import type { AgentConfig, Artifact, RunItem, StatusMessage } from '../core/ports/agent-runs.js';
import type { CursorPosition } from './cursor.js';
import type { RunCreator } from './keys.js';
import type { Timings } from './plan.js';
import type { RunSchedule } from './run-record.js';

export interface RunEngineOptions {
  clock?: { now(): Date };
  timings?: Partial<Timings>;
  /** No automatic moves: runs change only through drive, advance, follow-ups and cancel. */
  manual?: boolean;
  /** `creator.uid` of every run (the real service reports the API key's id, never the key). */
  creatorUid?: string;
  /** Who creates runs unless a create names its own `creator`; wins over `creatorUid`. */
  creator?: RunCreator;
  /** Base of session links; may be set later with `setPublicUrl` once the server listens. */
  publicUrl?: string;
}

export type RunEngineErrorCode = 'not_found' | 'conflict' | 'invalid_request';

/** A refused operation; the HTTP layer maps `code` to 404, 409 or 400. */
export class RunEngineError extends Error {
  override readonly name = 'RunEngineError';
  constructor(
    readonly code: RunEngineErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A run to create: a prompt, a skill (`skill` or `config.skill_spec`), or both. */
export interface CreateRunInput {
  prompt?: string;
  /** Takes precedence over `config.skill_spec`, as in the API. */
  skill?: string;
  title?: string;
  config?: AgentConfig;
  agent_identity_uid?: string;
  /** In-process only: the run is reported as created by this scheduled agent (source SCHEDULED_AGENT). */
  schedule?: RunSchedule;
  /** The key that creates the run (the HTTP layer passes the caller); default the engine's creator. */
  creator?: RunCreator;
}

export interface FactoryRunInput {
  prompt: string;
  title?: string;
  ticket_ref?: string;
  ticket_url?: string;
  /** The key that creates the run (the HTTP layer passes the caller); default the engine's creator. */
  creator?: RunCreator;
}

export interface DrivePatch {
  status_message?: string | StatusMessage;
  artifacts?: Artifact[];
}

export interface RunChange {
  run: RunItem;
  previousState: string;
}

export interface RunListResult {
  runs: RunItem[];
  /** Position of the last run of the page when more runs follow. */
  next?: CursorPosition;
}
