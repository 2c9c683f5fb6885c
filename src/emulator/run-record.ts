/**
 * The emulator's internal run record and its API view. The view is shaped as the run API's official
 * SDK (oz-agent-sdk) declares RunItem: optional members are left out rather than sent as null, the
 * status message is always an object, `task_id` repeats `run_id`. It also carries members the real
 * service sends and our client does not model, so tolerance of unknown fields is exercised by every
 * test that talks to the emulator.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { isKnownState, type AgentConfig, type Artifact, type RunItem, type StatusMessage } from '../core/ports/agent-runs.js';
import type { RunScript } from './script.js';
import { parseScript } from './script.js';
import { isRetryableCode } from './problem.js';
import { planFromQueued, type PlannedStep, type Timings } from './plan.js';
import { skillView } from './skill.js';
import type { RunCreator } from './keys.js';

export interface HistoryEntry {
  state: string;
  at: string;
  status_message: StatusMessage;
}

/** Where a run came from; `FACTORY` is ours (the SDK's RunSourceType has no factory dispatch). */
export type RunSource = 'API' | 'FACTORY' | 'SCHEDULED_AGENT';

/** The scheduled agent that created a run, as RunItem.schedule reports it. */
export interface RunSchedule {
  schedule_id: string;
  schedule_name: string;
  cron_schedule: string;
}

export interface FollowupEntry {
  message: string;
  at: string;
}

export interface RunRecord {
  id: string;
  /** Creation order; breaks created_at ties so the list order is total and stable. */
  seq: number;
  title: string;
  prompt: string;
  state: string;
  statusMessage: StatusMessage;
  createdAt: number;
  updatedAt: number;
  startedAt?: number;
  sessionId?: string;
  agentConfig?: AgentConfig;
  /** The skill the run uses (`skill`, else `config.skill_spec` of the create request). */
  skillSpec?: string;
  schedule?: RunSchedule;
  source: RunSource;
  creatorUid: string;
  /** The rest of who created the run: the principal's type and the key's last 4 characters. */
  creator: RunCreator;
  agentIdentityUid?: string;
  factory?: { uid: string; ticket_ref?: string; ticket_url?: string };
  conversationId: string;
  artifacts: Artifact[];
  usage: { inference_cost: number; compute_cost: number };
  script: RunScript;
  /** Remaining automatic steps; empty when the run waits (BLOCKED, ended, driven, manual). */
  plan: PlannedStep[];
  timer?: NodeJS.Timeout;
  history: HistoryEntry[];
  followups: FollowupEntry[];
}

/** States in which the real service keeps a sandbox up for the run. */
const SANDBOX_STATES = new Set(['CLAIMED', 'INPROGRESS', 'BLOCKED']);

/** A human label for a state the API does not document, e.g. `WAITING_FOR_REVIEW` → "Waiting for review". */
export function humanize(state: string): string {
  const words = state.toLowerCase().replace(/_+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A status message as the SDK declares it: an object, even when a driver gave plain text. */
export function toStatusMessage(value: string | StatusMessage): StatusMessage {
  return typeof value === 'string' ? { message: value } : structuredClone(value);
}

/**
 * The status message a run shows on entering `state`, unless a driver supplies one. Only end states
 * of failure carry `error_code` (from the SDK's ErrorCode set) and `retryable`, as the SDK says; a
 * failure the agent itself reports (`emulate: fail` without a code) has no platform code.
 */
export function defaultStatusMessage(record: RunRecord, state: string): StatusMessage {
  const outcome = record.script.outcome;
  switch (state) {
    case 'QUEUED':
      return { message: record.history.length > 0 ? 'Queued (follow-up)' : 'Queued' };
    case 'PENDING':
      return { message: 'Preparing environment' };
    case 'CLAIMED':
      return { message: 'Claimed by agent' };
    case 'INPROGRESS':
      return { message: 'Working' };
    case 'SUCCEEDED':
      return { message: 'Completed' };
    case 'CANCELLED':
      return { message: 'Cancelled' };
    case 'BLOCKED':
      return { message: `Waiting for input: ${record.script.block?.question ?? 'please confirm how to proceed'}` };
    case 'FAILED': {
      const scripted = outcome?.kind === 'fail' ? outcome : undefined;
      const message = scripted?.message ?? 'The agent could not complete the task';
      return scripted?.code ? { message, error_code: scripted.code, retryable: isRetryableCode(scripted.code) } : { message, retryable: false };
    }
    case 'ERROR': {
      const scripted = outcome?.kind === 'error' ? outcome : undefined;
      const code = scripted?.code ?? 'internal_error';
      return { message: scripted?.message ?? 'The run stopped on an internal error', error_code: code, retryable: isRetryableCode(code) };
    }
    default:
      return { message: humanize(state) };
  }
}

/** States that mean an agent is (or was) at work, so the run has a session to look at. */
export function hasSessionIn(state: string): boolean {
  return !isKnownState(state) || ['CLAIMED', 'INPROGRESS', 'BLOCKED', 'SUCCEEDED'].includes(state);
}

/**
 * The RunItem the API answers for a record; a deep copy, so callers cannot mutate the engine.
 * `started_at` is the one optional member the SDK declares nullable, so it is null until work starts;
 * the others are absent until they exist. The service's key is reported as a `service_account`
 * creator, a personal key as a `user`.
 */
export function toRunItem(record: RunRecord, publicUrl: string): RunItem {
  const item: RunItem = {
    run_id: record.id,
    // Deprecated in the SDK but still required there: the same id.
    task_id: record.id,
    title: record.title,
    prompt: record.prompt,
    state: record.state,
    status_message: structuredClone(record.statusMessage),
    created_at: new Date(record.createdAt).toISOString(),
    updated_at: new Date(record.updatedAt).toISOString(),
    started_at: record.startedAt === undefined ? null : new Date(record.startedAt).toISOString(),
    creator: { type: record.creator.type, uid: record.creatorUid },
    source: record.source,
    artifacts: structuredClone(record.artifacts),
    // Fields the real service sends that our client does not model.
    is_sandbox_running: SANDBOX_STATES.has(record.state) || !isKnownState(record.state),
    request_usage: { ...record.usage },
    conversation_id: record.conversationId,
  };
  if (record.sessionId) {
    item.session_id = record.sessionId;
    item.session_link = `${publicUrl}/sessions/${record.sessionId}`;
  }
  if (record.agentConfig) item.agent_config = structuredClone(record.agentConfig);
  if (record.skillSpec !== undefined) item['agent_skill'] = skillView(record.skillSpec);
  if (record.schedule) item['schedule'] = { ...record.schedule };
  if (record.agentIdentityUid !== undefined) item['agent_identity_uid'] = record.agentIdentityUid;
  if (record.factory) {
    item['factory_uid'] = record.factory.uid;
    if (record.factory.ticket_ref !== undefined) item['ticket_ref'] = record.factory.ticket_ref;
    if (record.factory.ticket_url !== undefined) item['ticket_url'] = record.factory.ticket_url;
  }
  return item;
}

const TITLE_LIMIT = 80;

/** The first non-empty line of a prompt, cut to 80 characters (79 + `…`), as the service does. */
export function defaultTitle(prompt: string): string {
  const line =
    prompt
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l !== '') ?? '';
  return line.length > TITLE_LIMIT ? `${line.slice(0, TITLE_LIMIT - 1)}…` : line;
}

/** Ids shaped like the service's: a type prefix and random hex. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}

export interface NewRecordInit {
  seq: number;
  now: number;
  prompt: string;
  title: string | undefined;
  source: RunSource;
  creator: RunCreator;
  timings: Timings;
}

/** A fresh QUEUED record with its scripted plan (the first run may block, revivals never do). */
export function createRecord(init: NewRecordInit): RunRecord {
  const script = parseScript(init.prompt);
  return {
    id: newId('run'),
    seq: init.seq,
    title: init.title && init.title.trim() !== '' ? init.title : defaultTitle(init.prompt),
    prompt: init.prompt,
    state: 'QUEUED',
    statusMessage: { message: 'Queued' },
    createdAt: init.now,
    updatedAt: init.now,
    source: init.source,
    creatorUid: init.creator.uid,
    creator: { ...init.creator },
    // The SDK declares the conversation id a UUID.
    conversationId: randomUUID(),
    artifacts: [],
    usage: { inference_cost: 0, compute_cost: 0 },
    script,
    plan: planFromQueued(script, init.timings, true),
    history: [{ state: 'QUEUED', at: new Date(init.now).toISOString(), status_message: { message: 'Queued' } }],
    followups: [],
  };
}
