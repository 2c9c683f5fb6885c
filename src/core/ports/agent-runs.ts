/**
 * The run API as the core sees it: normalised run types, the `AgentRuns` port and the one error
 * type every adapter throws. Nothing here knows about HTTP libraries; `agent-api/` implements it.
 */

/** States the run API documents. The list may grow: a state we do not know is kept as a string. */
export const KNOWN_RUN_STATES = ['QUEUED', 'PENDING', 'CLAIMED', 'INPROGRESS', 'SUCCEEDED', 'FAILED', 'BLOCKED', 'ERROR', 'CANCELLED'] as const;

export type KnownRunState = (typeof KNOWN_RUN_STATES)[number];
/** A run state: one of the known ones, or any other string the API may send in future. */
export type RunState = KnownRunState | (string & {});

export const TERMINAL_STATES: ReadonlySet<string> = new Set(['SUCCEEDED', 'FAILED', 'ERROR', 'CANCELLED']);

export function isKnownState(state: string): state is KnownRunState {
  return (KNOWN_RUN_STATES as readonly string[]).includes(state);
}

/** True only for a known terminal state: an unknown state keeps a run tracked. */
export function isTerminalState(state: string): boolean {
  return TERMINAL_STATES.has(state);
}

/** The API's `AmbientAgentConfig`. Fields we do not model are passed through untouched. */
export interface AgentConfig {
  name?: string;
  model_id?: string;
  base_prompt?: string;
  environment_id?: string;
  skill_spec?: unknown;
  mcp_servers?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface StatusMessage {
  message: string;
  error_code?: string;
  retryable?: boolean;
}

export interface Artifact {
  artifact_type: string;
  /** The API may send `null` for an artifact without data. */
  data?: Record<string, unknown> | null;
  [field: string]: unknown;
}

/** A run as the API reports it. Unknown fields are kept (index signature), never rejected. */
export interface RunItem {
  run_id: string;
  state: RunState;
  title?: string;
  prompt?: string;
  status_message?: string | StatusMessage | null;
  created_at?: string;
  updated_at?: string;
  started_at?: string | null;
  session_id?: string | null;
  session_link?: string | null;
  agent_config?: AgentConfig | null;
  creator?: unknown;
  source?: unknown;
  artifacts?: Artifact[] | null;
  /** Credits the run has used so far; either figure may be missing. */
  request_usage?: RequestUsage | null;
  [field: string]: unknown;
}

/** A run's `request_usage`: credits = inference + compute. */
export interface RequestUsage {
  inference_cost?: number | null;
  compute_cost?: number | null;
  [field: string]: unknown;
}

export interface CreateRunRequest {
  prompt: string;
  title?: string;
  config?: AgentConfig;
  agent_identity_uid?: string;
}

export interface FactoryRunRequest {
  prompt: string;
  title?: string;
  ticket_ref?: string;
  ticket_url?: string;
}

export interface CreatedRun {
  run_id: string;
  state: RunState;
  [field: string]: unknown;
}

/** Filters of `GET /agent/runs`. Timestamps are RFC 3339 strings. */
export interface ListRunsQuery {
  limit?: number;
  cursor?: string;
  state?: string[];
  name?: string;
  model_id?: string;
  creator?: string;
  source?: string;
  created_after?: string;
  created_before?: string;
  updated_after?: string;
}

export interface RunPage {
  runs: RunItem[];
  page_info: { has_next_page: boolean; next_cursor?: string | null };
}

/** The port the core uses to start, steer, stop and observe runs. */
export interface AgentRuns {
  createRun(request: CreateRunRequest): Promise<CreatedRun>;
  dispatchToFactory(factoryUid: string, request: FactoryRunRequest): Promise<CreatedRun>;
  listRuns(query?: ListRunsQuery): Promise<RunPage>;
  /** Every run matching the query, following `next_cursor` page by page. */
  allRuns(query?: Omit<ListRunsQuery, 'cursor'>): AsyncIterable<RunItem>;
  getRun(runId: string): Promise<RunItem>;
  sendFollowup(runId: string, message: string): Promise<void>;
  cancelRun(runId: string): Promise<void>;
}

/**
 * The run API under one person's own key: what their runs are created, followed up,
 * cancelled and watched with. Undefined when the person has no key connected. The run API may show a
 * run only to the key that created it, so the tracker lists each such key's runs through this.
 */
export type RunsForOwner = (personId: string) => Promise<AgentRuns | undefined>;

/** Stable error kinds: branch on these, never on message text. */
export type AgentApiErrorKind =
  | 'bad_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'rate_limited'
  | 'server'
  | 'connection'
  | 'timeout'
  | 'invalid_response'
  | 'unexpected_status';

export interface AgentApiErrorInit {
  kind: AgentApiErrorKind;
  status?: number;
  code?: string;
  detail?: string;
  retryable: boolean;
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * Every failure of the run API, typed. `status` is the HTTP status (0 for connection and timeout
 * errors), `code` the problem body's `error` field when the server sent one, else the kind.
 * The message never contains the API key or a request header.
 */
export class AgentApiError extends Error {
  override readonly name = 'AgentApiError';
  readonly kind: AgentApiErrorKind;
  readonly status: number;
  readonly code: string;
  readonly detail: string | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, init: AgentApiErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.status = init.status ?? 0;
    this.code = init.code ?? init.kind;
    this.detail = init.detail;
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs;
  }
}

export function isAgentApiError(error: unknown): error is AgentApiError {
  return error instanceof AgentApiError;
}
