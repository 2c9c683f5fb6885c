import { ConfigError } from '../config/problems.js';
import { AgentApiError } from '../core/ports/agent-runs.js';
import { explainAgentApiError } from '../core/explain-error.js';
import { StartupError } from '../core/startup-error.js';

/** CLI exit codes (docs/architecture.md §6). */
export const ExitCode = {
  ok: 0,
  /** `run --wait`: the run ended in a state other than SUCCEEDED. */
  runNotSucceeded: 1,
  usage: 2,
  agentApi: 3,
} as const;

/** A usage or configuration problem: exit 2 with this message. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** An outcome that is not an error but still sets the exit code (e.g. the run failed). */
export class ExitWith extends Error {
  override readonly name = 'ExitWith';
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** The one place that turns a thrown error into an exit code and the line a person reads. */
export function exitFor(error: unknown): { code: number; message?: string } {
  if (error instanceof ExitWith) return { code: error.code };
  if (error instanceof AgentApiError) return { code: ExitCode.agentApi, message: explainAgentApiError(error) };
  if (error instanceof UsageError) return { code: ExitCode.usage, message: error.message };
  if (error instanceof ConfigError || error instanceof StartupError) return { code: ExitCode.usage, message: error.message };
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { code: ExitCode.usage, message: `unexpected error: ${message}` };
}
