/**
 * The emulator's internal run record and its API view. The view carries, besides the fields our
 * client models, a few the real service sends and our client does not know, so that tolerance of
 * unknown fields is exercised by every test that talks to the emulator.
 */
import { randomBytes } from 'node:crypto';
import { isKnownState, type AgentConfig, type Artifact, type RunItem, type StatusMessage } from '../core/agent-runs.js';
import type { RunScript } from './script.js';
import { parseScript } from './script.js';
import { planFromQueued, type Timings } from './plan.js';

export interface HistoryEntry {
  state: string;
  at: string;
  status_message: string | StatusMessage;
}

export interface FollowupEntry {
  message: string;
  at: string;
}

/** One step of a run's planned progression: enter `state` `afterMs` after the previous step. */
export interface PlannedStep {
  state: string;
  afterMs: number;
  /** Outcome steps carry the pull-request artifact of `emulate: pr`. */
  pullRequest?: boolean;
}

export interface RunRecord {
  id: string;
  /** Creation order; breaks created_at ties so the list order is total and stable. */
  seq: number;
  title: string;
  prompt: string;
  state: string;
  statusMessage: string | StatusMessage;
  createdAt: number;
  updatedAt: number;
  startedAt?: number;
  sessionId?: string;
  agentConfig?: AgentConfig;
  source: 'API' | 'FACTORY';
  creatorUid: string;
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

/** The status message a run shows on entering `state`, unless a driver supplies one. */
export function defaultStatusMessage(record: RunRecord, state: string): string | StatusMessage {
  switch (state) {
    case 'QUEUED':
      return record.history.length > 0 ? 'Queued (follow-up)' : 'Queued';
    case 'PENDING':
      return 'Preparing environment';
    case 'CLAIMED':
      return 'Claimed by agent';
    case 'INPROGRESS':
      return 'Working';
    case 'SUCCEEDED':
      return 'Completed';
    case 'CANCELLED':
      return 'Cancelled';
    case 'BLOCKED':
      return `Waiting for input: ${record.script.block?.question ?? 'please confirm how to proceed'}`;
    case 'FAILED':
      return {
        message: record.script.outcome?.kind === 'fail' ? record.script.outcome.message : 'The agent could not complete the task',
        error_code: 'agent_failed',
        retryable: false,
      };
    case 'ERROR':
      return {
        message: record.script.outcome?.kind === 'error' ? record.script.outcome.message : 'The run stopped on an internal error',
        error_code: 'internal_error',
        retryable: true,
      };
    default:
      return humanize(state);
  }
}

/** States that mean an agent is (or was) at work, so the run has a session to look at. */
export function hasSessionIn(state: string): boolean {
  return !isKnownState(state) || ['CLAIMED', 'INPROGRESS', 'BLOCKED', 'SUCCEEDED'].includes(state);
}

function iso(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString();
}

/** The RunItem the API answers for a record; a deep copy, so callers cannot mutate the engine. */
export function toRunItem(record: RunRecord, publicUrl: string): RunItem {
  const item: RunItem = {
    run_id: record.id,
    title: record.title,
    prompt: record.prompt,
    state: record.state,
    status_message: structuredClone(record.statusMessage),
    created_at: new Date(record.createdAt).toISOString(),
    updated_at: new Date(record.updatedAt).toISOString(),
    started_at: iso(record.startedAt),
    session_id: record.sessionId ?? null,
    session_link: record.sessionId ? `${publicUrl}/sessions/${record.sessionId}` : null,
    agent_config: record.agentConfig ? structuredClone(record.agentConfig) : null,
    creator: { type: 'API_KEY', uid: record.creatorUid },
    source: record.source,
    artifacts: structuredClone(record.artifacts),
    // Fields the real service sends that our client does not model.
    is_sandbox_running: SANDBOX_STATES.has(record.state) || !isKnownState(record.state),
    request_usage: { ...record.usage },
    conversation_id: record.conversationId,
  };
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
  const line = prompt.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== '') ?? '';
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
  source: 'API' | 'FACTORY';
  creatorUid: string;
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
    statusMessage: 'Queued',
    createdAt: init.now,
    updatedAt: init.now,
    source: init.source,
    creatorUid: init.creatorUid,
    conversationId: newId('conv'),
    artifacts: [],
    usage: { inference_cost: 0, compute_cost: 0 },
    script,
    plan: planFromQueued(script, init.timings, true),
    history: [{ state: 'QUEUED', at: new Date(init.now).toISOString(), status_message: 'Queued' }],
    followups: [],
  };
}
