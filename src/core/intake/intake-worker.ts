import { AgentApiError, type AgentRuns, type CreatedRun } from '../ports/agent-runs.js';
import type { Clock } from '../ports/clock.js';
import { explainAgentApiError } from '../explain-error.js';
import type { Logger } from '../ports/logger.js';
import type { OutboxMessage } from '../ports/messages.js';
import { receivedKey, transitionKey } from '../ports/messages.js';
import { noMetrics, type CoreMetrics } from '../ports/metrics.js';
import { allowEveryone, deniedNotice, type AccessPolicy, type PromptEnricher } from '../ports/intake.js';
import { failureMessages, followupHeardElsewhere, notice, retryNotice, stoppingMessages } from './intake-messages.js';
import { findRunByReference } from './reconcile.js';
import { gatherFollowups, sendGathered, type GatherDeps } from './followup-batch.js';
import { applyRequestOptions } from './request-options-step.js';
import { readRequestStep } from './read-request-step.js';
import { describeOptions } from '../request-options.js';
import { bindIssue, boundTitle, issueReceived, joinedNotice } from './issue-binding.js';
import { IssueStartBusyError, releaseIssueStart, takeIssueStart, type StartClaim } from './issue-start-lock.js';
import type { IssueLinker } from '../ports/issue-links.js';
import { resolveRoute, type ResolvedRoute, type RoutingTable } from './routing.js';
import type { NewOutboxRow, StoredTrigger, StoredTriggerOf, Store, TriggerEffects, TriggerOutcome } from '../ports/store.js';
import { type Requester, type StartPayload, promptWithReference, requesterName } from '../ports/triggers.js';
import { anchorAliasKey, cancelledByKey } from '../ports/setting-keys.js';
import { serviceKeyOnly, type KeyChoice, type RunKeys } from '../ports/people.js';
import { keyProblemMessages } from './key-messages.js';
import { callWithKey, KeyRefusedError, type KeyedCall } from './key-step.js';

export interface IntakeOptions {
  /** How long a trigger is retried while the run API fails (`intake.retry_window`). */
  retryWindowMs: number;
  /** Lease on a claimed trigger, renewed every third of it while work goes on. Default 30 s. */
  leaseMs?: number;
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** How far back (on the server's clock) to look for a run a crashed attempt may have created. */
  reconcileLookbackMs?: number;
}

export interface IntakeDeps {
  store: Store;
  runs: AgentRuns;
  clock: Clock;
  logger: Logger;
  routing: RoutingTable;
  owner: string;
  options: IntakeOptions;
  access?: AccessPolicy;
  /** By trigger source (`slack`, `linear`, …). */
  enrichers?: Record<string, PromptEnricher>;
  /** By trigger source: finds the issue a start request names, to bind the run to it (`slack.link_linear_issues`). */
  issueLinkers?: Record<string, IssueLinker>;
  metrics?: CoreMetrics;
  random?: () => number;
  /** By trigger source: how long follow-ups gather before they go as one (`followup_window` with `followups: all`); 0 or absent: each alone. */
  followupWindows?: Record<string, number>;
  /** Whose key each start, follow-up and cancel uses (`people.attribution`); default: the service key (`runs`) for all. */
  keys?: RunKeys;
}

/** How a handler ends a trigger; undefined when it lost the lease and must leave it alone. */
interface Settlement {
  outcome: TriggerOutcome;
  effects: TriggerEffects;
  /** Another anchor to make the run's current one once the trigger is finished (an issue the run is bound to). */
  alsoLink?: string;
}

const settle = (outcome: TriggerOutcome, effects: TriggerEffects = {}): Settlement => ({ outcome, effects });

/**
 * Works the inbox: claims one stored trigger at a time (a lease, so two workers never work the same
 * one; a process runs several, each with its own owner), and starts, steers or stops the run it asks
 * for. Run-API failures are retried with backoff for `retryWindowMs`, then reported to the person; a
 * create that may have happened is reconciled by listing before anything is created again.
 */
export class IntakeWorker {
  private readonly metrics: CoreMetrics;
  private readonly access: AccessPolicy;
  private readonly leaseMs: number;
  private readonly keys: RunKeys;

  constructor(private readonly deps: IntakeDeps) {
    this.metrics = deps.metrics ?? noMetrics;
    this.keys = deps.keys ?? serviceKeyOnly(deps.runs);
    this.access = deps.access ?? allowEveryone;
    this.leaseMs = deps.options.leaseMs ?? 30_000;
  }

  /**
   * Claims and works one due trigger; false when none is due. `onClaimed` is told as soon as a trigger
   * is claimed, before the (slow) run-API work: the caller may start another worker meanwhile.
   */
  async workOnce(onClaimed?: () => void): Promise<boolean> {
    const { store, clock, owner } = this.deps;
    const trigger = await store.triggers.claimNext(owner, clock.now(), this.leaseMs);
    if (!trigger) return false;
    onClaimed?.();
    const log = this.deps.logger.child({ trigger: trigger.key, kind: trigger.kind, attempt: trigger.attempts });
    // A short lease kept alive while we work: a crashed worker's trigger is taken over within
    // one lease, while a slow run-API call never lets a second worker start on it.
    const stopHeartbeat = this.heartbeat(trigger);
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
      if (settlement && (await this.finish(trigger, settlement.outcome, settlement.effects))) {
        const runId = settlement.outcome.runId;
        if (settlement.alsoLink && runId) await store.anchors.link(settlement.alsoLink, runId, clock.now());
        for (const anchor of starting) await releaseIssueStart(store, anchor, trigger.key);
      }
      return true;
    } finally {
      stopHeartbeat();
    }
  }

  private heartbeat(trigger: StoredTrigger): () => void {
    const { clock, store, owner } = this.deps;
    let cancel: (() => void) | undefined;
    const beat = () => {
      cancel = clock.setTimer(
        () => {
          store.triggers.extendLease(trigger.id, owner, clock.now(), this.leaseMs).then(
            (held) => (held ? beat() : this.deps.logger.warn({ trigger: trigger.key }, 'lost the lease while working')),
            (error: unknown) => this.deps.logger.error({ err: error, trigger: trigger.key }, 'could not renew the lease'),
          );
        },
        Math.floor(this.leaseMs / 3),
      );
    };
    beat();
    return () => cancel?.();
  }

  /** Works triggers until none is due (tests, shutdown). */
  async drain(limit = 1000): Promise<number> {
    let handled = 0;
    while (handled < limit && (await this.workOnce())) handled++;
    return handled;
  }

  private handle(trigger: StoredTrigger, starting: string[]): Promise<Settlement | undefined> {
    const denied = this.access.deny(trigger);
    // Also checked when the trigger was stored; checked again here because the policy may have changed.
    if (denied) return Promise.resolve(settle({ state: 'ignored', error: 'not allowed' }, { owed: [deniedNotice(trigger, denied)] }));
    if (trigger.kind === 'start') return this.start(trigger, starting);
    if (trigger.kind === 'followup') return this.followup(trigger);
    return this.cancel(trigger);
  }

  /** `starting` collects the anchors whose start lease this attempt takes (one start at a time per issue). */
  private async start(trigger: StoredTriggerOf<'start'>, starting: string[]): Promise<Settlement | undefined> {
    const read = await readRequestStep(trigger, trigger.payload, this.deps.enrichers?.[trigger.source]);
    if (read.kind === 'refused') return settle({ state: 'ignored', error: 'request unreadable' }, { owed: read.owed });
    let payload = read.payload;
    if (payload.followupIfLinked) {
      const current = await this.currentRun(trigger.anchor, payload.otherAnchors);
      if (current) return this.sendFollowup(trigger, current, await this.withFollowupContext(trigger, payload.prompt, payload.reference), payload.reference);
    }
    if (payload.unlessActive) {
      const current = await this.currentRun(trigger.anchor, payload.otherAnchors);
      const run = current ? await this.deps.store.trackedRuns.get(current) : undefined;
      if (run?.tracked) {
        const reason = `run ${run.runId} is still active here (${run.state}); stop it or wait for it to end before starting another`;
        return settle({ state: 'ignored', runId: run.runId, error: 'a run is already active' }, { owed: failureMessages(trigger, reason) });
      }
      // A request about the same issue worked at this moment (a Slack mention naming it) must not start a second run.
      await takeIssueStart(this.deps.store, trigger.anchor, this.startClaim(trigger));
      starting.push(trigger.anchor);
    }
    const binding = await bindIssue(
      trigger,
      this.deps.issueLinkers?.[trigger.source],
      this.deps.store,
      (anchor, others) => this.currentRun(anchor, others),
      this.startClaim(trigger),
    );
    if (binding?.kind === 'bind') starting.push(binding.issue.anchor);
    if (binding?.kind === 'join') {
      const joined = await this.sendFollowup(trigger, binding.runId, payload.prompt, payload.reference);
      const owed = [...(joined.effects.owed ?? []), joinedNotice(trigger, binding.issue, binding.runId)];
      const done = joined.outcome.state === 'done';
      // The thread becomes one of the run's places (the tracker announces the run's next states there
      // too) before the trigger is finished: a finished trigger is never worked again, so a crash right
      // after the finish must not lose the place. Adding it again on a retry changes nothing.
      if (done) await this.deps.store.trackedRuns.addDestination(binding.runId, trigger.anchor, this.deps.clock.now());
      const effects = { ...joined.effects, ...(done && { link: { anchor: trigger.anchor, runId: binding.runId } }), owed };
      return settle(joined.outcome, effects);
    }
    const issue = binding?.kind === 'bind' ? binding.issue : undefined;
    const optioned = applyRequestOptions(trigger, payload, resolveRoute(this.deps.routing, payload.origin));
    if (optioned.kind === 'refused') return settle({ state: 'ignored', error: 'options not allowed' }, { owed: optioned.owed });
    const route = optioned.route;
    payload = optioned.payload;
    // Chosen before the context is gathered: a request that may not run costs no platform call.
    const choice = await this.keys.choose(payload.requester);
    if (choice.kind === 'refused') return this.noKey(trigger, 'start');
    const enriched = await this.enrich(trigger, payload);
    const prompt = promptWithReference(issue ? `${enriched}\n\n${issue.context}` : enriched, trigger.key);
    const title = route.title ?? (issue ? boundTitle(issue) : payload.title);
    let created: CreatedRun | undefined;
    const attemptedAt = trigger.createAttemptedAt;
    if (attemptedAt !== null) {
      // A previous attempt may have created the run before it crashed or timed out: adopt it.
      const lookback = this.deps.options.reconcileLookbackMs ?? 15 * 60_000;
      // Listed with the key that created it: the run API may show a run only to its creator.
      const found = await this.withKey(choice, 'start', (runs) =>
        findRunByReference(runs, trigger.key, {
          ...(route.kind === 'run' && { name: route.config.name }),
          createdAfter: new Date(attemptedAt - lookback).toISOString(),
        }),
      );
      if (found) {
        this.deps.logger.info({ trigger: trigger.key, runId: found.run_id }, 'adopted the run an earlier attempt created');
        // Stored as just created: the tracker then observes (and announces) whatever state the
        // run has reached since, exactly as if the create had answered.
        created = { run_id: found.run_id, state: 'QUEUED' };
      }
    }
    if (!created) {
      if (!(await this.deps.store.triggers.markCreateAttempted(trigger.id, this.deps.owner, this.deps.clock.now()))) return undefined;
      created = await this.withKey(choice, 'start', (runs) => this.create(runs, route, prompt, title, payload));
    }
    this.metrics.runStarted(trigger.source);
    this.metrics.intakeLatency(this.deps.clock.now() - trigger.receivedAt);
    const destinations = issue ? [...payload.destinations, issue.anchor] : payload.destinations;
    const snapshot = {
      runId: created.run_id,
      title,
      state: created.state,
      pullRequests: [],
      ...(route.kind === 'run' && route.options && { options: describeOptions(route.options) }),
    };
    const owed: NewOutboxRow[] = [];
    if (issue) owed.push(issueReceived(trigger, issue, title));
    if (binding?.kind === 'refused') owed.push(binding.notice);
    owed.push(
      ...destinations.map((destination) => ({
        key: transitionKey(created.run_id, 0, destination, 'status'),
        destination,
        kind: 'status',
        payload: { kind: 'status', run: snapshot, receivedKey: receivedKey(trigger.key, destination) } satisfies OutboxMessage,
      })),
    );
    const settlement = settle(
      { state: 'done', runId: created.run_id },
      {
        run: {
          runId: created.run_id,
          anchor: trigger.anchor,
          source: trigger.source,
          title,
          route,
          destinations,
          triggerKey: trigger.key,
          state: created.state,
          serverUpdatedAt: null,
          sessionLink: null,
          ...(choice.keyOwner !== undefined && { keyOwner: choice.keyOwner }),
        },
        link: { anchor: trigger.anchor, runId: created.run_id },
        owed,
      },
    );
    return issue ? { ...settlement, alsoLink: issue.anchor } : settlement;
  }

  /** How this worker holds an issue's start lease for `trigger`. */
  private startClaim(trigger: StoredTrigger): StartClaim {
    return { triggerKey: trigger.key, now: this.deps.clock.now(), leaseMs: this.leaseMs };
  }

  /**
   * The anchor's current run; a thread our own message started (`/agent <prompt>`) counts as its
   * trigger's anchor (an alias). When the anchor has none, the trigger's other anchors for the same
   * place are tried in order, the same way.
   */
  private async currentRun(anchor: string, otherAnchors: readonly string[] = []): Promise<string | undefined> {
    for (const name of [anchor, ...otherAnchors]) {
      const direct = await this.deps.store.anchors.currentRun(name);
      if (direct) return direct;
      const alias = await this.deps.store.settings.get(anchorAliasKey(name));
      const aliased = alias ? await this.deps.store.anchors.currentRun(alias) : undefined;
      if (aliased) return aliased;
    }
    return undefined;
  }

  private async enrich(trigger: StoredTrigger, payload: StartPayload): Promise<string> {
    const enricher = this.deps.enrichers?.[trigger.source];
    if (!enricher) return payload.prompt;
    try {
      return await enricher.enrich(trigger, payload);
    } catch (error) {
      this.deps.logger.warn({ err: error, trigger: trigger.key }, 'could not gather the request context; starting with the request alone');
      return payload.prompt;
    }
  }

  private create(runs: AgentRuns, route: ResolvedRoute, prompt: string, title: string, payload: StartPayload): Promise<CreatedRun> {
    if (route.kind === 'factory') {
      return runs.dispatchToFactory(route.factory_uid, {
        prompt,
        title,
        ...(payload.ticket?.ref && { ticket_ref: payload.ticket.ref }),
        ...(payload.ticket?.url && { ticket_url: payload.ticket.url }),
      });
    }
    return runs.createRun({
      prompt,
      title,
      config: route.config,
      ...(route.agent_identity_uid && { agent_identity_uid: route.agent_identity_uid }),
    });
  }

  private async followup(trigger: StoredTriggerOf<'followup'>): Promise<Settlement> {
    const payload = trigger.payload;
    const runId = payload.runId ?? (await this.currentRun(trigger.anchor, payload.otherAnchors));
    // A reply in a thread that never had a run is conversation, not a request.
    if (!runId)
      return settle(
        { state: 'ignored', error: 'no run at this anchor' },
        payload.noRunNotice ? { owed: [notice(trigger, 'no-run', payload.noRunNotice)] } : {},
      );
    // followups: all — the replies stored behind this one within its window go with it, as one.
    const batch: GatherDeps = { ...this.deps, leaseMs: this.leaseMs, ...(this.deps.followupWindows && { windows: this.deps.followupWindows }) };
    const gathered = await gatherFollowups(batch, trigger);
    if (gathered.length > 0) return sendGathered(batch, trigger, gathered, (message) => this.sendFollowup(trigger, runId, message, payload.reference));
    return this.sendFollowup(trigger, runId, await this.withFollowupContext(trigger, payload.message, payload.reference), payload.reference);
  }

  /** A follow-up's text with what was said since the agent's previous turn (docs/configuration.md). */
  private async withFollowupContext(trigger: StoredTrigger, message: string, reference: unknown): Promise<string> {
    const enricher = this.deps.enrichers?.[trigger.source];
    if (!enricher?.followupContext) return message;
    try {
      const context = await enricher.followupContext(trigger, reference);
      return context ? `${message}\n\n${context}` : message;
    } catch (error) {
      this.deps.logger.warn({ err: error, trigger: trigger.key }, 'could not gather what was said since the last turn; sending the follow-up alone');
      return message;
    }
  }

  private async sendFollowup(trigger: StoredTrigger, runId: string, message: string, reference: unknown): Promise<Settlement> {
    const choice = await this.keys.choose(requesterOf(trigger));
    if (choice.kind === 'refused') return this.noKey(trigger, 'followup');
    try {
      await this.withKey(choice, 'followup', (runs) => runs.sendFollowup(runId, message));
    } catch (error) {
      if (error instanceof AgentApiError && error.kind === 'not_found') {
        const hidden = await this.hiddenFrom(runId, choice);
        const text = hidden ? `Your reply was not delivered: ${hidden}.` : `The run ${runId} no longer exists, so your reply was not delivered.`;
        return settle({ state: 'failed', runId, error: hidden ? 'run not visible to this key' : 'run not found' }, { owed: [notice(trigger, 'gone', text)] });
      }
      throw error;
    }
    this.metrics.followupSent(trigger.source);
    this.metrics.intakeLatency(this.deps.clock.now() - trigger.receivedAt);
    const accepted: NewOutboxRow = {
      key: `followup:${trigger.key}:${trigger.anchor}`,
      destination: trigger.anchor,
      kind: 'followup_accepted',
      payload: { kind: 'followup_accepted', runId, ...(reference !== undefined && { reference }) } satisfies OutboxMessage,
    };
    const run = await this.deps.store.trackedRuns.get(runId);
    const elsewhere = run ? followupHeardElsewhere(trigger, run, requesterOf(trigger)) : [];
    return settle({ state: 'done', runId }, { retrack: runId, owed: [accepted, ...elsewhere] });
  }

  private async cancel(trigger: StoredTriggerOf<'cancel'>): Promise<Settlement> {
    const payload = trigger.payload;
    const runId = payload.runId ?? (await this.currentRun(trigger.anchor, payload.otherAnchors));
    if (!runId) return settle({ state: 'ignored', error: 'no run at this anchor' }, { owed: [notice(trigger, 'nothing', 'There is no run here to stop.')] });
    const choice = await this.cancelKey(payload.requester, runId);
    if (choice.kind === 'refused') return this.noKey(trigger, 'cancel');
    const who = requesterName(payload.requester);
    // Written before the call so the tracker's CANCELLED announcement can say who it was.
    if (who) await this.deps.store.settings.set(cancelledByKey(runId), who);
    try {
      await this.withKey(choice, 'cancel', (runs) => runs.cancelRun(runId));
    } catch (error) {
      const hidden = error instanceof AgentApiError && error.kind === 'not_found' ? await this.hiddenFrom(runId, choice) : undefined;
      if (hidden)
        return settle(
          { state: 'failed', runId, error: 'run not visible to this key' },
          { owed: [notice(trigger, 'not-visible', `The run was not stopped: ${hidden}.`)] },
        );
      if (error instanceof AgentApiError && error.kind === 'bad_request') {
        const state = await choice.runs.getRun(runId).then(
          (run) => run.state,
          () => undefined,
        );
        const text =
          state === 'BLOCKED'
            ? 'The run is waiting for input and cannot be cancelled now; reply to continue it.'
            : `The run has already ended${state ? ` (${state})` : ''}; there is nothing to stop.`;
        return settle({ state: 'done', runId, error: 'not cancellable' }, { owed: [notice(trigger, 'not-cancellable', text)] });
      }
      throw error;
    }
    this.metrics.cancelRequested(trigger.source);
    const run = await this.deps.store.trackedRuns.get(runId);
    // A run not stored here has no status message to edit, and the tracker will not announce its end.
    const owed = run
      ? stoppingMessages(trigger, run, who, payload.reference)
      : [notice(trigger, 'cancelling', `Stopping the run ${runId}${who ? ` (requested by ${who})` : ''}.`)];
    return settle({ state: 'done', runId }, { owed });
  }

  /**
   * The key a cancel uses: the asker's, as `people.attribution` says. A cancel no person asked for (the
   * console's admin token) is the operator's and uses the key that created the run, since the run API
   * may show a run only to that key; the console has already decided the admin may cancel it.
   */
  private async cancelKey(requester: Requester | undefined, runId: string): Promise<KeyChoice> {
    if (requester === undefined || requester.platform === 'console') {
      const owner = (await this.deps.store.trackedRuns.get(runId))?.keyOwner;
      const runs = owner === undefined ? undefined : await this.keys.forOwner(owner);
      if (runs && owner !== undefined) return { kind: 'use', runs, keyOwner: owner };
    }
    return this.keys.choose(requester);
  }

  /**
   * Why the run API may not know a run we track (a 404): it was started under another key, and the
   * run API can show a run only to the key that created it. Undefined when that is not the reason.
   */
  private async hiddenFrom(runId: string, choice: Extract<KeyChoice, { kind: 'use' }>): Promise<string | undefined> {
    const run = await this.deps.store.trackedRuns.get(runId);
    if (!run || run.keyOwner === choice.keyOwner) return undefined;
    const whose = run.keyOwner === undefined ? 'the service’s key' : 'another person’s key';
    return `run ${runId} was started under ${whose}, and the run API shows it only to that key`;
  }

  /** Calls the run API under the chosen key (`key-step.ts`). */
  private withKey<T>(choice: Extract<KeyChoice, { kind: 'use' }>, asked: KeyedCall, call: (runs: AgentRuns) => Promise<T>): Promise<T> {
    return callWithKey(this.keys, choice, asked, this.deps.logger, call);
  }

  /** `personal_required` and the asker has no key: nothing runs, and they are told how to connect one. */
  private noKey(trigger: StoredTrigger, asked: KeyedCall): Settlement {
    return settle(
      { state: 'ignored', error: 'no personal API key' },
      { owed: keyProblemMessages(trigger, asked, { kind: 'no_key' }, this.keys.howToConnect()) },
    );
  }

  /**
   * The run API refused the asker's own key: the same key would be refused again, so the trigger ends
   * failed at once; the person is told privately, the place that nothing ran. The key is marked refused.
   */
  private async keyRefused(trigger: StoredTrigger, error: KeyRefusedError, log: Logger): Promise<void> {
    log.warn({ keyOwner: error.personId, status: error.status }, 'the run API refused the personal API key of the person who asked');
    await this.keys.refused(error.personId, error.status).catch((cause: unknown) => log.warn({ err: cause }, 'could not record the refused key'));
    this.metrics.triggerFailed(trigger.source);
    const owed = keyProblemMessages(trigger, error.asked, { kind: 'refused', status: error.status }, this.keys.howToConnect());
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
    const apiError = error instanceof AgentApiError ? error : undefined;
    const retryable = apiError ? apiError.retryable : true;
    const withinWindow = now - trigger.receivedAt < options.retryWindowMs;
    const reason = apiError ? explainAgentApiError(apiError) : 'an internal error stopped it; the operator can find it in the service log';
    if (retryable && withinWindow) {
      const base = options.baseBackoffMs ?? 2_000;
      const backoff = Math.min(options.maxBackoffMs ?? 60_000, base * 2 ** Math.max(0, trigger.attempts - 1));
      const jittered = Math.round(backoff / 2 + ((this.deps.random ?? Math.random)() * backoff) / 2);
      const delay = Math.max(apiError?.retryAfterMs ?? 0, jittered);
      log.warn({ err: apiError ? { code: apiError.code, status: apiError.status } : error, retryInMs: delay }, 'run API call failed; will retry');
      const heads = retryNotice(trigger, apiError);
      if (heads) await store.outbox.add([heads], now);
      await store.triggers.reschedule(trigger.id, owner, now + delay, apiError ? `${apiError.code}: ${apiError.message}` : String(error), now);
      return;
    }
    log.error({ err: apiError ? { code: apiError.code, status: apiError.status } : error }, 'giving up on trigger');
    this.metrics.triggerFailed(trigger.source);
    const owed = failureMessages(trigger, reason);
    await this.finish(trigger, { state: 'failed', error: apiError ? apiError.code : 'internal_error' }, { owed });
  }

  private async finish(trigger: StoredTrigger, outcome: TriggerOutcome, effects: TriggerEffects): Promise<boolean> {
    const finished = await this.deps.store.triggers.finish(trigger.id, this.deps.owner, outcome, effects, this.deps.clock.now());
    if (!finished) this.deps.logger.warn({ trigger: trigger.key }, 'lost the lease on a trigger; another worker has it');
    return finished;
  }
}

/** Who asked, whatever the trigger's kind. */
function requesterOf(trigger: StoredTrigger): Requester | undefined {
  return trigger.payload.requester;
}
