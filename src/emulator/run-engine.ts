/**
 * The emulator's run engine: runs, their state machine, per-run timers and scripted outcomes. It
 * knows nothing of HTTP, so tests and the CLI can use it in-process and the HTTP layer stays thin.
 */
import { isTerminalState, type RunItem } from '../core/ports/agent-runs.js';
import {
  RunEngineError,
  type CreateRunInput,
  type DrivePatch,
  type FactoryRunInput,
  type RunChange,
  type RunEngineOptions,
  type RunListResult,
} from './engine-types.js';
import type { RunCreator } from './keys.js';
import { DEFAULT_TIMINGS, outcomeStep, planFromQueued, type Timings } from './plan.js';
import type { RunFilter } from './query.js';
import { selectPage } from './run-list.js';
import {
  createRecord,
  defaultStatusMessage,
  hasSessionIn,
  newId,
  toRunItem,
  toStatusMessage,
  type FollowupEntry,
  type HistoryEntry,
  type RunRecord,
  type RunSource,
} from './run-record.js';
import { skillName, skillPrompt } from './skill.js';

const round = (n: number): number => Math.round(n * 10_000) / 10_000;

export class RunEngine {
  readonly manual: boolean;
  readonly timings: Timings;
  private readonly clock: { now(): Date };
  private readonly creator: RunCreator;
  private baseUrl: string | undefined;
  private readonly runs = new Map<string, RunRecord>();
  private readonly bySession = new Map<string, RunRecord>();
  private readonly listeners = new Set<(change: RunChange) => void>();
  private readonly watchers = new Set<() => void>();
  private seq = 0;
  private pullRequests = 0;
  private closed = false;

  constructor(options: RunEngineOptions = {}) {
    this.manual = options.manual ?? false;
    this.timings = { ...DEFAULT_TIMINGS, ...options.timings };
    this.clock = options.clock ?? { now: () => new Date() };
    this.creator = options.creator ?? { uid: options.creatorUid ?? 'key_emulator', type: 'service_account' };
    this.baseUrl = options.publicUrl?.replace(/\/+$/, '');
  }

  /** Base URL of session links (no trailing slash). */
  get publicUrl(): string {
    return this.baseUrl ?? 'http://127.0.0.1';
  }

  /** True once a base URL was given or learnt; the handler learns it from a request otherwise. */
  get hasPublicUrl(): boolean {
    return this.baseUrl !== undefined;
  }

  setPublicUrl(url: string): void {
    this.baseUrl = url.replace(/\/+$/, '');
  }

  /**
   * Creates a run in QUEUED, as `POST /agent/run` does. A run with a skill and no prompt works on
   * `skillPrompt(skill)`; its config carries the skill as `skill_spec` and, unless named, its name.
   */
  createRun(input: CreateRunInput): RunItem {
    const configSkill = typeof input.config?.skill_spec === 'string' ? input.config.skill_spec : undefined;
    const skill = input.skill ?? configSkill;
    const prompt = input.prompt ?? (skill !== undefined ? skillPrompt(skill) : undefined);
    if (prompt === undefined) throw new RunEngineError('invalid_request', 'prompt is required unless a skill is given');
    const record = this.newRecord(prompt, input.title, input.schedule ? 'SCHEDULED_AGENT' : 'API', input.creator);
    if (input.config) record.agentConfig = structuredClone(input.config);
    if (skill !== undefined) {
      record.skillSpec = skill;
      record.agentConfig = { ...record.agentConfig, skill_spec: skill };
      record.agentConfig.name ??= skillName(skill);
    }
    if (input.schedule) record.schedule = { ...input.schedule };
    if (input.agent_identity_uid !== undefined) record.agentIdentityUid = input.agent_identity_uid;
    return this.start(record);
  }

  /** Creates a run dispatched to a factory; afterwards it is an ordinary run without a config. */
  createFactoryRun(factoryUid: string, input: FactoryRunInput): RunItem {
    const record = this.newRecord(input.prompt, input.title, 'FACTORY', input.creator);
    record.factory = { uid: factoryUid };
    if (input.ticket_ref !== undefined) record.factory.ticket_ref = input.ticket_ref;
    if (input.ticket_url !== undefined) record.factory.ticket_url = input.ticket_url;
    return this.start(record);
  }

  get(runId: string): RunItem | undefined {
    const record = this.runs.get(runId);
    return record && this.view(record);
  }

  /** Who created the run (its key's principal and last 4 characters); undefined for an unknown run. */
  creatorOf(runId: string): RunCreator | undefined {
    const record = this.runs.get(runId);
    return record && { ...record.creator };
  }

  getBySession(sessionId: string): RunItem | undefined {
    const record = this.bySession.get(sessionId);
    return record && this.view(record);
  }

  /** Every state the run entered, with its time and status message, oldest first. */
  history(runId: string): HistoryEntry[] {
    return structuredClone(this.record(runId).history);
  }

  followups(runId: string): FollowupEntry[] {
    return structuredClone(this.record(runId).followups);
  }

  /** Runs newest first (created_at desc, then creation order desc), filtered and paged. */
  list(filter: Partial<RunFilter> = {}): RunListResult {
    const { page, next } = selectPage(this.runs.values(), filter);
    const result: RunListResult = { runs: page.map((r) => this.view(r)) };
    if (next) result.next = next;
    return result;
  }

  /**
   * Records a follow-up. A BLOCKED run resumes (INPROGRESS, then its outcome); an ended run is
   * continued from QUEUED through the whole progression again, with its script minus `block`.
   */
  sendFollowup(runId: string, message: string): void {
    const record = this.record(runId);
    record.followups.push({ message, at: new Date(this.now()).toISOString() });
    if (record.state === 'BLOCKED') {
      record.plan = [outcomeStep(record.script, this.timings, false)];
      this.enter(record, 'INPROGRESS');
      this.schedule(record);
    } else if (isTerminalState(record.state)) {
      record.plan = planFromQueued(record.script, this.timings, false);
      this.enter(record, 'QUEUED');
      this.schedule(record);
    } else {
      this.changed();
    }
  }

  /** Cancels a QUEUED, CLAIMED or INPROGRESS run (or one in an undocumented, non-terminal state). */
  cancel(runId: string): RunItem {
    const record = this.record(runId);
    if (record.state === 'PENDING') throw new RunEngineError('conflict', 'run is being prepared; retry shortly');
    if (isTerminalState(record.state)) {
      throw new RunEngineError('invalid_request', `run already ended (${record.state}) and cannot be cancelled`);
    }
    if (record.state === 'BLOCKED') {
      throw new RunEngineError('invalid_request', 'a BLOCKED run cannot be cancelled; send a follow-up instead');
    }
    this.stop(record);
    this.enter(record, 'CANCELLED');
    return this.view(record);
  }

  /** Puts a run into any state now, known or not, and stops its automatic progression. */
  drive(runId: string, state: string, patch: DrivePatch = {}): RunItem {
    const record = this.record(runId);
    this.stop(record);
    this.enter(record, state, patch);
    return this.view(record);
  }

  /** Takes the run's next planned step now (for manual mode); 409 when it has none. */
  advance(runId: string): RunItem {
    const record = this.record(runId);
    if (record.plan.length === 0) {
      throw new RunEngineError('conflict', `run has no automatic next step in state ${record.state}`);
    }
    this.step(record);
    return this.view(record);
  }

  /** Calls `listener` after every state change of every run; returns the unsubscribe function. */
  subscribe(listener: (change: RunChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once the run is in `state` (or satisfies the predicate); rejects after `timeoutMs`. */
  waitFor(runId: string, until: string | ((run: RunItem) => boolean), timeoutMs = 5000): Promise<RunItem> {
    const test = typeof until === 'string' ? (run: RunItem) => run.state === until : until;
    return new Promise((resolve, reject) => {
      const current = this.get(runId);
      if (current && test(current)) {
        resolve(current);
        return;
      }
      const timer = setTimeout(() => {
        unsubscribe();
        reject(new Error(`run ${runId} did not reach the expected state within ${timeoutMs} ms`));
      }, timeoutMs);
      const unsubscribe = this.subscribe(({ run }) => {
        if (run.run_id !== runId || !test(run)) return;
        clearTimeout(timer);
        unsubscribe();
        resolve(run);
      });
    });
  }

  /** Forgets every run and stops every timer; the engine stays usable. */
  reset(): void {
    for (const record of this.runs.values()) this.stop(record);
    this.runs.clear();
    this.bySession.clear();
    this.seq = 0;
    this.pullRequests = 0;
    this.changed();
  }

  /**
   * Calls `watcher` after anything about the runs changed — a run created, a state entered, a
   * follow-up received, the runs forgotten — so a keeper can save them; returns the unsubscribe function.
   */
  watch(watcher: () => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** Every run as a plain record (no timer), oldest first: what a keeper saves. */
  exportRuns(): RunRecord[] {
    return [...this.runs.values()]
      .sort((a, b) => a.seq - b.seq)
      .map((record) => {
        // A timer is this process's, and no data: it is set again when the runs are taken back.
        const plain: RunRecord = { ...record };
        delete plain.timer;
        return structuredClone(plain);
      });
  }

  /**
   * Takes back runs saved by `exportRuns` (another process's, before a restart): each keeps its id,
   * session and history, and one that was on its way takes its next planned step again, as if it had
   * just entered its state. Runs already known are left as they are.
   */
  importRuns(records: readonly RunRecord[]): void {
    for (const saved of records) {
      if (this.runs.has(saved.id)) continue;
      const record: RunRecord = structuredClone(saved);
      this.runs.set(record.id, record);
      if (record.sessionId) this.bySession.set(record.sessionId, record);
      this.seq = Math.max(this.seq, record.seq);
      this.pullRequests += record.artifacts.filter((artifact) => artifact.artifact_type === 'PULL_REQUEST').length;
      this.schedule(record);
    }
  }

  /** Stops every timer for good; runs stay readable but no longer move on their own. */
  close(): void {
    this.closed = true;
    for (const record of this.runs.values()) {
      clearTimeout(record.timer);
      record.timer = undefined;
    }
  }

  private now(): number {
    return this.clock.now().getTime();
  }

  private record(runId: string): RunRecord {
    const record = this.runs.get(runId);
    if (!record) throw new RunEngineError('not_found', `run ${runId} not found`);
    return record;
  }

  private view(record: RunRecord): RunItem {
    return toRunItem(record, this.publicUrl);
  }

  private newRecord(prompt: string, title: string | undefined, source: RunSource, creator: RunCreator = this.creator): RunRecord {
    return createRecord({
      seq: ++this.seq,
      now: this.now(),
      prompt,
      title,
      source,
      creator,
      timings: this.timings,
    });
  }

  private start(record: RunRecord): RunItem {
    this.runs.set(record.id, record);
    this.schedule(record);
    this.changed();
    return this.view(record);
  }

  private stop(record: RunRecord): void {
    clearTimeout(record.timer);
    record.timer = undefined;
    record.plan = [];
  }

  private schedule(record: RunRecord): void {
    clearTimeout(record.timer);
    record.timer = undefined;
    const next = record.plan[0];
    if (!next || this.manual || this.closed) return;
    record.timer = setTimeout(() => {
      record.timer = undefined;
      if (this.runs.get(record.id) === record) this.step(record);
    }, next.afterMs);
    // Timers alone must not keep a process (a test worker, a CLI) alive.
    record.timer.unref();
  }

  private step(record: RunRecord): void {
    const next = record.plan.shift();
    if (!next) return;
    this.enter(record, next.state, {}, next.pullRequest === true);
    this.schedule(record);
  }

  /** Every state change goes through here, so timestamps, history and listeners never drift. */
  private enter(record: RunRecord, state: string, patch: DrivePatch = {}, pullRequest = false): void {
    const previousState = record.state;
    // updated_at strictly increases per run even when the clock stands still (tests, same ms).
    record.updatedAt = Math.max(this.now(), record.updatedAt + 1);
    record.state = state;
    record.statusMessage = patch.status_message !== undefined ? toStatusMessage(patch.status_message) : defaultStatusMessage(record, state);
    if (hasSessionIn(state) && !record.sessionId) {
      record.sessionId = newId('sess');
      this.bySession.set(record.sessionId, record);
    }
    if (state === 'INPROGRESS' && record.startedAt === undefined) record.startedAt = record.updatedAt;
    const at = new Date(record.updatedAt).toISOString();
    // The SDK requires created_at on every artifact; a driver may leave it out.
    if (patch.artifacts) record.artifacts = patch.artifacts.map((artifact) => ({ ...structuredClone(artifact), created_at: artifact['created_at'] ?? at }));
    if (pullRequest && !record.artifacts.some((a) => a.artifact_type === 'PULL_REQUEST')) {
      record.artifacts.push({
        artifact_type: 'PULL_REQUEST',
        created_at: at,
        data: { url: `https://github.com/example/repo/pull/${++this.pullRequests}`, branch: `agent/${record.id}` },
      });
    }
    if (record.sessionId) {
      record.usage.inference_cost = round(record.usage.inference_cost + 0.01);
      record.usage.compute_cost = round(record.usage.compute_cost + 0.002);
    }
    record.history.push({
      state,
      at,
      status_message: structuredClone(record.statusMessage),
    });
    this.emit(record, previousState);
    this.changed();
  }

  private changed(): void {
    for (const watcher of [...this.watchers]) {
      try {
        watcher();
      } catch {
        // A keeper's failure must not break the run's progression.
      }
    }
  }

  private emit(record: RunRecord, previousState: string): void {
    if (this.listeners.size === 0) return;
    const run = this.view(record);
    for (const listener of [...this.listeners]) {
      try {
        listener({ run, previousState });
      } catch {
        // A listener's failure must not break the run's progression.
      }
    }
  }
}
