/**
 * Local implementation of the Cloud Agent Run API, for development, demos, the CLI and tests.
 */
export {
  createEmulatorHandler,
  startEmulator,
  type EmulatorHandler,
  type EmulatorHandlerOptions,
  type EmulatorOptions,
  type RunningEmulator,
} from './emulator.js';
export { RunEngine } from './run-engine.js';
export { KeyRing, VISIBILITIES, creatorUidFor, type RunCreator, type Visibility } from './keys.js';
export {
  RunEngineError,
  type CreateRunInput,
  type DrivePatch,
  type FactoryRunInput,
  type RunChange,
  type RunEngineErrorCode,
  type RunEngineOptions,
  type RunListResult,
} from './engine-types.js';
export { DEFAULT_TIMINGS, type Timings } from './plan.js';
export { parseListQuery, parseRfc3339, type RunFilter } from './query.js';
export { decodeCursor, encodeCursor, type CursorPosition } from './cursor.js';
export { parseScript, type RunScript } from './script.js';
export { defaultTitle, type FollowupEntry, type HistoryEntry } from './run-record.js';
export type { Fault, RequestLogEntry } from './traffic.js';
export type { ProblemBody, ProblemCode } from './problem.js';
