/**
 * Parsing and validation of the `GET /agent/runs` query, with the parameters of the run API's SDK
 * (RunListParams, plus `sort_by`/`sort_order` of its newer source). The real service rejects a bad
 * limit, cursor, timestamp or state with a 400, and so do we, for every enumerated parameter too,
 * with a `detail` naming the parameter, so a client bug shows up against the emulator rather than in
 * production.
 */
import { KNOWN_RUN_STATES, isKnownState } from '../core/ports/agent-runs.js';
import { decodeCursor, type CursorPosition } from './cursor.js';
import { badRequest } from './problem.js';
import { DEFAULT_ORDER, SORT_FIELDS, defaultOrderFor, type RunOrder, type SortField } from './run-order.js';

/** The SDK's RunSourceType, and our factory dispatch. */
export const RUN_SOURCES = ['LINEAR', 'API', 'SLACK', 'LOCAL', 'SCHEDULED_AGENT', 'WEB_APP', 'GITHUB_ACTION', 'CLOUD_MODE', 'CLI', 'FACTORY'] as const;
/** Artifact types the SDK's `artifact_type` filter names (alpha.8: PLAN, PULL_REQUEST; later more). */
export const ARTIFACT_TYPES = ['PLAN', 'PULL_REQUEST', 'SCREENSHOT', 'FILE', 'EXTERNAL_REFERENCE'] as const;

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

/**
 * A validated list filter. Timestamps are epoch milliseconds (possibly fractional, to keep the
 * sub-millisecond precision RFC 3339 allows). The window is `created_after <= created_at <
 * created_before` and `updated_at > updated_after`.
 */
export interface RunFilter {
  limit: number;
  order: RunOrder;
  after?: CursorPosition;
  states?: string[];
  name?: string;
  model_id?: string;
  creator?: string;
  source?: string;
  createdAfter?: number;
  createdBefore?: number;
  updatedAfter?: number;
  /** Case-insensitive text searched in the title, the prompt and the skill spec. */
  q?: string;
  environmentId?: string;
  /** `skill` or its alias `skill_spec`. */
  skill?: string;
  scheduleId?: string;
  artifactType?: string;
  /** Not a query parameter: in owner visibility, the calling key's creator uid (it sees only its own runs). */
  visibleTo?: string;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses a strict RFC 3339 date-time (`2026-01-02T03:04:05Z`, optional fraction, `Z` or `±hh:mm`).
 * Returns epoch milliseconds, or `undefined` for anything else, including out-of-range fields that
 * `Date.parse` would quietly roll over.
 */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return undefined;
  // Second 60 is a leap second; Date.UTC rolls it into the next minute, which is close enough.
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  let offsetMinutes = 0;
  if (!m[8]) {
    const offsetHours = Number(m[10]);
    const offsetMins = Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const fractionMs = m[7] ? Number(`0${m[7]}`) * 1000 : 0;
  return Date.UTC(year, month - 1, day, hour, minute, second) + fractionMs - offsetMinutes * 60_000;
}

function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length === 0) return undefined;
  if (values.length > 1) throw badRequest(`${name} must be given at most once`);
  return values[0];
}

function text(params: URLSearchParams, name: string): string | undefined {
  const value = single(params, name);
  if (value === undefined) return undefined;
  if (value === '') throw badRequest(`${name} must not be empty`);
  return value;
}

function timestamp(params: URLSearchParams, name: string): number | undefined {
  const value = single(params, name);
  if (value === undefined) return undefined;
  const ms = parseRfc3339(value);
  if (ms === undefined) {
    throw badRequest(`${name} must be an RFC 3339 timestamp such as 2026-01-02T03:04:05Z`);
  }
  return ms;
}

function oneOf<T extends string>(params: URLSearchParams, name: string, allowed: readonly T[]): T | undefined {
  const value = single(params, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw badRequest(`${name} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value.slice(0, 100))})`);
  }
  return value as T;
}

function order(params: URLSearchParams): RunOrder {
  const by = oneOf<SortField>(params, 'sort_by', SORT_FIELDS) ?? DEFAULT_ORDER.by;
  return { by, order: oneOf(params, 'sort_order', ['asc', 'desc'] as const) ?? defaultOrderFor(by) };
}

function skill(params: URLSearchParams): string | undefined {
  const [skillValue, specValue] = [text(params, 'skill'), text(params, 'skill_spec')];
  if (skillValue !== undefined && specValue !== undefined && skillValue !== specValue) {
    throw badRequest('skill and skill_spec are the same filter; give one of them (or the same value in both)');
  }
  return skillValue ?? specValue;
}

function limit(params: URLSearchParams): number {
  const value = single(params, 'limit');
  if (value === undefined) return DEFAULT_LIMIT;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_LIMIT) {
    throw badRequest(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  }
  return n;
}

/** Validates a list query; throws a 400 `ProblemError` naming the first bad parameter. */
export function parseListQuery(params: URLSearchParams): RunFilter {
  const filter: RunFilter = { limit: limit(params), order: order(params) };
  const cursor = single(params, 'cursor');
  if (cursor !== undefined) {
    const position = decodeCursor(cursor);
    if (!position) throw badRequest('cursor is malformed; pass next_cursor from a previous page unchanged');
    if (position.by !== filter.order.by || position.order !== filter.order.order) {
      throw badRequest(
        `cursor belongs to the order sort_by=${position.by}&sort_order=${position.order}; pass the same sort_by and sort_order as the first page`,
      );
    }
    filter.after = position;
  }
  const states = params.getAll('state');
  if (states.length > 0) {
    for (const state of states) {
      if (!isKnownState(state)) {
        throw badRequest(`state must be one of ${KNOWN_RUN_STATES.join(', ')} (got ${JSON.stringify(state)})`);
      }
    }
    filter.states = [...new Set(states)];
  }
  const name = text(params, 'name');
  if (name !== undefined) filter.name = name;
  const modelId = text(params, 'model_id');
  if (modelId !== undefined) filter.model_id = modelId;
  const creator = text(params, 'creator');
  if (creator !== undefined) filter.creator = creator;
  const source = oneOf(params, 'source', RUN_SOURCES);
  if (source !== undefined) filter.source = source;
  const q = text(params, 'q');
  if (q !== undefined) filter.q = q;
  const environmentId = text(params, 'environment_id');
  if (environmentId !== undefined) filter.environmentId = environmentId;
  const skillSpec = skill(params);
  if (skillSpec !== undefined) filter.skill = skillSpec;
  const scheduleId = text(params, 'schedule_id');
  if (scheduleId !== undefined) filter.scheduleId = scheduleId;
  const artifactType = oneOf(params, 'artifact_type', ARTIFACT_TYPES);
  if (artifactType !== undefined) filter.artifactType = artifactType;
  const createdAfter = timestamp(params, 'created_after');
  if (createdAfter !== undefined) filter.createdAfter = createdAfter;
  const createdBefore = timestamp(params, 'created_before');
  if (createdBefore !== undefined) filter.createdBefore = createdBefore;
  const updatedAfter = timestamp(params, 'updated_after');
  if (updatedAfter !== undefined) filter.updatedAfter = updatedAfter;
  return filter;
}
