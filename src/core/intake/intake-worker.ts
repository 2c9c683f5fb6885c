import { AgentApiError } from '../ports/agent-runs.js';
import { explainAgentApiError } from '../explain-error.js';
import { lazyChild, type Logger } from '../ports/logger.js';
import { deniedNotice } from '../ports/intake.js';
import type { StoredTrigger, TriggerEffects, TriggerOutcome } from '../ports/store.js';
import { auditEntryOf } from './audit-entry.js';
import { cancelStep } from './cancel-step.js';
import { clearRequester, RequesterUncheckedError } from './clear-requester.js';
import { followupStep } from './followup-step.js';
import { failureMessages, retryNotice } from './intake-messages.js';
import { IssueStartBusyError, releaseIssueStart } from './issue-start-lock.js';
import { keyProblemMessages } from './key-messages.js';
import { KeyRefusedError } from './call-with-key.js';
import { renewLease } from '../lease-renewal.js';
import type { HandOverWorker } from '../hand-over/hand-over.js';
import { WaitingWork } from '../hand-over/waiting-work.js';
import { startStep } from './start-step.js';
import { settle, StepContext, type IntakeDeps, type Settlement } from './step-context.js';
import { ATTR, EVENT, RETRY_IN_MS, SPAN } from '../ports/trace-names.js';
import { tracing, type SpanOptions } from '../ports/tracing.js';

export type { IntakeDeps, IntakeOptions } from './step-context.js';

/**
 * Works the inbox: claims one stored trigger at a time (a lease, so two workers never work the same
 * one; a process runs several, each with its own owner), and starts, steers or stops the run it asks
 * for. Run-API failures are retried with backoff for `retryWindowMs`, then reported to the person; a
 * create that may have happened is reconciled by listing before anything is created again. What each
 * kind of trigger does is its step's: `start-step.ts`, `followup-step.ts`, `cancel-step.ts`.
 */
export class IntakeWorker implements HandOverWorker<StoredTrigger> {
  private readonly ctx: StepContext;
  private moreDue = false;
  /** A trigger the store handed over to this worker as it was stored (`take`), its lease renewed until the pass. */
  private readonly handed: WaitingWork<StoredTrigger>;

  constructor(deps: IntakeDeps) {
    this.ctx = new StepContext(deps);
    this.handed = new WaitingWork(
      `worker ${deps.owner}`,
      (trigger) => this.heartbeat(trigger),
      (trigger) => `trigger ${trigger.key}`,
    );
  }

  private get deps(): IntakeDeps {
    return this.ctx.deps;
  }

  /**
   * Claims and works one due trigger; false when none is due. `onClaimed` is told as soon as a trigger
   * is claimed whose claim saw another due, before the (slow) run-API work: the caller may start
   * another worker meanwhile.
   */
  async workOnce(onClaimed?: () => void): Promise<boolean> {
    const { store, clock, owner } = this.deps;
    const handed = this.handed.next();
    const trigger = handed ? { ...handed.work, moreDue: false } : await store.triggers.claimNext(owner, clock.now(), this.ctx.leaseMs);
    this.moreDue = trigger?.moreDue ?? false;
    if (!trigger) return false;
    if (trigger.moreDue) onClaimed?.();
    const traces = tracing();
    if (!traces.on) return this.work(trigger, handed?.stopRenewing);
    return traces.inSpan(SPAN.intake, intakeSpan(trigger), () => this.work(trigger, handed?.stopRenewing));
  }

  /** Works a claimed (or handed over) trigger to its end, or to its next attempt. */
  private async work(trigger: StoredTrigger, handedStopRenewing: (() => void) | undefined): Promise<true> {
    const { store, clock } = this.deps;
    const log = lazyChild(this.deps.logger, { trigger: trigger.key, kind: trigger.kind, attempt: trigger.attempts });
    // A short lease kept alive while we work: a crashed worker's trigger is taken over within
    // one lease, while a slow run-API call never lets a second worker start on it.
    const stopHeartbeat = handedStopRenewing ?? this.heartbeat(trigger);
    /** Anchors whose start lease this attempt took (issue-start-lock.ts): given up once the trigger is finished. */
    const starting: string[] = [];
    try {
      let settlement: Settlement | undefined;
      try {
        settlement = await this.handle(trigger, starting);
      } catch (error) {
        await this.failedAttempt(trigger, error, log);
        return true;
      }
      // The act's audit entry is written with the end (keyed by the trigger: a retry adds nothing).
      const audit = settlement && auditEntryOf(trigger, settlement, clock.now());
      if (settlement && (await this.finish(trigger, settlement.outcome, { ...settlement.effects, ...(audit && { audit }) }))) {
        const runId = settlement.outcome.runId;
        if (settlement.alsoLink && runId) await store.anchors.link(settlement.alsoLink, runId, clock.now());
        for (const anchor of starting) await releaseIssueStart(store, anchor, trigger.key);
      }
      return true;
    } finally {
      stopHeartbeat();
    }
  }

  /** The lease this worker's triggers are claimed for (a trigger handed over as it is stored included). */
  get leaseMs(): number {
    return this.ctx.leaseMs;
  }

  /** This worker's lease owner. */
  get owner(): string {
    return this.deps.owner;
  }

  /**
   * Takes the trigger the store handed over to this worker as it was stored (`IntakeService`,
   * `TriggerTaker`): the next `workOnce` works it without claiming. Its lease is renewed from now on,
   * since the pass may wait at the work gate first.
   */
  take(trigger: StoredTrigger): void {
    this.handed.keep(trigger);
  }

  /** Whether the next `workOnce` works a trigger handed over (`take`). */
  get hasWorkWaiting(): boolean {
    return this.handed.has;
  }

  /**
   * Gives back a trigger handed over and not worked (the loops stopped before its pass): pending
   * again, due as before, so any worker takes it at once rather than after its lease.
   */
  async letGo(): Promise<void> {
    const { store, owner, clock } = this.deps;
    await this.handed.letGo((trigger) => store.triggers.release([trigger.id], owner, clock.now()));
  }

  private heartbeat(trigger: StoredTrigger): () => void {
    const { clock, store, owner, logger } = this.deps;
    return renewLease(clock, this.ctx.leaseMs, {
      extend: () => store.triggers.extendLease(trigger.id, owner, clock.now(), this.ctx.leaseMs),
      lost: () => logger.warn({ trigger: trigger.key }, 'lost the lease while working'),
      failed: (error) => {
        logger.error({ err: error, trigger: trigger.key }, 'could not renew the lease');
        return false;
      },
    });
  }

  /**
   * Whether the last `workOnce`'s claim saw another trigger due: a loop goes again at once only then.
   * A trigger stored since wakes a worker itself; one falling due later is found by the poll.
   */
  get sawMoreDue(): boolean {
    return this.moreDue;
  }

  /** Works triggers until none is due (tests, shutdown). */
  async drain(limit = 1000): Promise<number> {
    let handled = 0;
    while (handled < limit && (await this.workOnce())) handled++;
    return handled;
  }

  private async handle(trigger: StoredTrigger, starting: string[]): Promise<Settlement | undefined> {
    const denied = this.ctx.access.deny(trigger);
    // Also checked when the trigger was stored; checked again here because the policy may have changed.
    if (denied) return settle({ state: 'ignored', error: 'not allowed' }, { owed: [deniedNotice(trigger, denied)] });
    if (trigger.payload.checkRequester) {
      const refused = await clearRequester(this.ctx, trigger);
      if (refused) return refused;
    }
    if (trigger.kind === 'start') return startStep(this.ctx, trigger, starting);
    if (trigger.kind === 'followup') return followupStep(this.ctx, trigger);
    return cancelStep(this.ctx, trigger);
  }

  /**
   * The run API refused the asker's own key: the same key would be refused again, so the trigger ends
   * failed at once; the person is told privately, the place that nothing ran. The key is marked refused.
   */
  private async keyRefused(trigger: StoredTrigger, error: KeyRefusedError, log: Logger): Promise<void> {
    log.warn({ personalKeyOwner: error.personId, status: error.status }, 'the run API refused the personal API key of the person who asked');
    await this.ctx.keys.refused(error.personId, error.status).catch((cause: unknown) => log.warn({ err: cause }, 'could not record the refused key'));
    this.ctx.metrics.triggerFailed(trigger.source);
    const owed = keyProblemMessages(trigger, error.asked, { kind: 'refused', status: error.status }, this.ctx.keys.howToConnect(), this.ctx.surfaces);
    await this.finish(trigger, { state: 'failed', error: 'personal_key_refused' }, { owed });
  }

  /** A failed attempt: retry with backoff within the window, else tell the person and give up. */
  private async failedAttempt(trigger: StoredTrigger, error: unknown, log: Logger): Promise<void> {
    if (error instanceof KeyRefusedError) return this.keyRefused(trigger, error, log);
    const { clock, store, owner, options } = this.deps;
    const now = clock.now();
    if (error instanceof IssueStartBusyError) {
      // Not a failure: another request about the issue is starting its run; the next look finds it.
      log.debug({ anchor: error.anchor }, 'another request is starting a run on this issue; will look again');
      await store.triggers.reschedule(trigger.id, owner, now + error.retryInMs, error.message, now);
      return;
    }
    const withinWindow = now - trigger.receivedAt < options.retryWindowMs;
    if (error instanceof RequesterUncheckedError) return this.requesterUnchecked(trigger, error, withinWindow, log);
    const apiError = error instanceof AgentApiError ? error : undefined;
    const retryable = apiError ? apiError.retryable : true;
    const reason = apiError ? explainAgentApiError(apiError) : 'an internal error stopped it; the operator can find it in the service log';
    const span = tracing().active();
    span.fail(apiError ? apiError.code : 'internal_error', apiError?.message);
    if (retryable && withinWindow) {
      const delay = Math.max(apiError?.retryAfterMs ?? 0, this.backoff(trigger));
      span.addEvent(EVENT.retry, { [ATTR.attempt]: trigger.attempts, [RETRY_IN_MS]: delay });
      log.warn({ err: apiError ? { code: apiError.code, status: apiError.status } : error, retryInMs: delay }, 'run API call failed; will retry');
      const heads = retryNotice(trigger, apiError);
      if (heads) await store.outbox.add([heads], now);
      await store.triggers.reschedule(trigger.id, owner, now + delay, apiError ? `${apiError.code}: ${apiError.message}` : String(error), now);
      return;
    }
    log.error({ err: apiError ? { code: apiError.code, status: apiError.status } : error }, 'giving up on trigger');
    this.ctx.metrics.triggerFailed(trigger.source);
    const owed = failureMessages(trigger, reason);
    await this.finish(trigger, { state: 'failed', error: apiError ? apiError.code : 'internal_error' }, { owed });
  }

  /** Exponential backoff for the attempt just made, capped, with jitter: between half and all of it. */
  private backoff(trigger: StoredTrigger): number {
    const { options } = this.deps;
    const base = options.baseBackoffMs ?? 2_000;
    const backoff = Math.min(options.maxBackoffMs ?? 60_000, base * 2 ** Math.max(0, trigger.attempts - 1));
    return Math.round(backoff / 2 + ((this.deps.random ?? Math.random)() * backoff) / 2);
  }

  /**
   * The surface could not say whether the requester may act: asked again within the retry window, then
   * given up without a word to anyone — nobody was told the request was received, and it may be a
   * stranger's.
   */
  private async requesterUnchecked(trigger: StoredTrigger, error: RequesterUncheckedError, withinWindow: boolean, log: Logger): Promise<void> {
    const { clock, store, owner } = this.deps;
    const now = clock.now();
    if (withinWindow) {
      const delay = this.backoff(trigger);
      log.warn({ err: error.cause, retryInMs: delay }, `${error.message}; will ask again`);
      await store.triggers.reschedule(trigger.id, owner, now + delay, error.message, now);
      return;
    }
    log.error({ err: error.cause }, `${error.message}; giving up on the request`);
    this.ctx.metrics.triggerFailed(trigger.source);
    await this.finish(trigger, { state: 'failed', error: 'requester_unchecked' }, {});
  }

  private async finish(trigger: StoredTrigger, outcome: TriggerOutcome, effects: TriggerEffects): Promise<boolean> {
    const traces = tracing();
    let traced = effects;
    if (traces.on) {
      const span = traces.active();
      if (outcome.runId) span.setAttribute(ATTR.runId, outcome.runId);
      traced = withTrace(effects, span.traceparent);
    }
    const finished = await this.deps.store.triggers.finish(trigger.id, this.deps.owner, outcome, traced, this.deps.clock.now());
    if (!finished) this.deps.logger.warn({ trigger: trigger.key }, 'lost the lease on a trigger; another worker has it');
    return finished;
  }
}

/**
 * The intake span of one attempt: the first is the child of the request that stored the trigger; a
 * retry, or a trigger taken over after its worker died, only links to it (its request has long ended,
 * and each attempt is found from it).
 */
function intakeSpan(trigger: StoredTrigger): SpanOptions {
  const first = trigger.attempts <= 1;
  const attributes = {
    [ATTR.triggerKey]: trigger.key,
    [ATTR.triggerKind]: trigger.kind,
    [ATTR.surface]: trigger.source,
    [ATTR.place]: trigger.anchor,
    [ATTR.person]: trigger.payload.requester?.id,
    [ATTR.attempt]: trigger.attempts,
    ...(!first && { [ATTR.redelivered]: true }),
  };
  return first
    ? { kind: 'consumer', parent: trigger.traceparent ?? null, attributes }
    : { kind: 'consumer', root: true, links: [trigger.traceparent], attributes };
}

/** What the attempt stores, with the intake span's trace: the run it started keeps it, and so does what it owes. */
function withTrace(effects: TriggerEffects, traceparent: string | undefined): TriggerEffects {
  if (traceparent === undefined) return effects;
  return {
    ...effects,
    ...(effects.run && { run: { ...effects.run, traceparent } }),
    ...(effects.owed && { owed: effects.owed.map((row) => ({ ...row, traceparent: row.traceparent ?? traceparent })) }),
  };
}
