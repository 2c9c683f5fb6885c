/**
 * What the intake worker and its steps (`start-step.ts`, `followup-step.ts`, `cancel-step.ts`) share:
 * the worker's dependencies, how a step ends a trigger (a `Settlement`), and the few helpers every
 * step needs — the anchor's current run, calls under the chosen key, and what to say when a key is
 * missing or cannot see a run.
 */
import type { AgentRuns } from '../ports/agent-runs.js';
import type { Clock } from '../ports/clock.js';
import { allowEveryone, type AccessPolicy, type PromptEnricher, type RequesterCheck } from '../ports/intake.js';
import type { IssueLinker } from '../ports/issue-links.js';
import type { Logger } from '../ports/logger.js';
import { noMetrics, type CoreMetrics } from '../ports/metrics.js';
import type { SessionPlaces } from '../ports/notifier.js';
import { serviceKeyOnly, type KeyChoice, type RunKeys } from '../ports/people.js';
import { anchorAliasSetting } from '../ports/setting-names.js';
import type { StoredTrigger, Store, TriggerEffects, TriggerOutcome } from '../ports/store.js';
import type { Requester } from '../ports/triggers.js';
import { Surfaces } from '../surfaces.js';
import type { AuditFacts } from './audit-entry.js';
import { keyProblemMessages } from './key-messages.js';
import { callWithKey, type KeyedCall } from './call-with-key.js';
import type { RoutingTable } from './routing.js';
import type { Limits } from '../limits/limits.js';

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
  /** By trigger source: whether a requester the edge could not clear may act (`checkRequester`); a source without one clears nobody. */
  requesterChecks?: Record<string, RequesterCheck>;
  /** The registered surfaces: what their places can do (speak privately), how they are named. Absent: none. */
  surfaces?: Surfaces;
  /** By trigger source (a surface's name): reads the context around its requests. */
  enrichers?: Record<string, PromptEnricher>;
  /** By trigger source: finds the issue a start request names, to bind the run to it (a surface's setting turns it on). */
  issueLinkers?: Record<string, IssueLinker>;
  metrics?: CoreMetrics;
  random?: () => number;
  /** By trigger source: how long follow-ups gather before they go as one (`followup_window` with `followups: all`); 0 or absent: each alone. */
  followupWindows?: Record<string, number>;
  /** Whose key each start, follow-up and cancel uses (`people.attribution`); default: the service key (`runs`) for all. */
  keys?: RunKeys;
  /** The places that show a run as a live session: a start, a revival and a stop owe its new phase there. Absent: none. */
  sessionPlaces?: SessionPlaces;
  /** `limits.per_person`; a route's own limits come with the route. Absent: none. */
  limits?: { perPerson: Limits };
}

/** How a step ends a trigger; undefined when it lost the lease and must leave it alone. */
export interface Settlement {
  outcome: TriggerOutcome;
  effects: TriggerEffects;
  /** Another anchor to make the run's current one once the trigger is finished (an issue the run is bound to). */
  alsoLink?: string;
  /** What the audit entry of this act says beyond the outcome (`audit-entry.ts`). */
  audit?: AuditFacts;
}

export const settle = (outcome: TriggerOutcome, effects: TriggerEffects = {}, audit?: AuditFacts): Settlement => ({
  outcome,
  effects,
  ...(audit && { audit }),
});

/** A key choice that lets the request run. */
export type UsableKey = Extract<KeyChoice, { kind: 'use' }>;

/** Who asked, whatever the trigger's kind. */
export function requesterOf(trigger: StoredTrigger): Requester | undefined {
  return trigger.payload.requester;
}

/** The worker's dependencies with their defaults filled in, and the helpers its steps share. */
export class StepContext {
  readonly metrics: CoreMetrics;
  readonly access: AccessPolicy;
  readonly leaseMs: number;
  readonly keys: RunKeys;
  readonly surfaces: Surfaces;

  constructor(readonly deps: IntakeDeps) {
    this.metrics = deps.metrics ?? noMetrics;
    this.keys = deps.keys ?? serviceKeyOnly(deps.runs);
    this.access = deps.access ?? allowEveryone;
    this.surfaces = deps.surfaces ?? Surfaces.none;
    this.leaseMs = deps.options.leaseMs ?? 30_000;
  }

  /**
   * The anchor's current run; a thread our own message started (`/agent <prompt>`) counts as its
   * trigger's anchor (an alias). When the anchor has none, the trigger's other anchors for the same
   * place are tried in order, the same way.
   */
  async currentRun(anchor: string, otherAnchors: readonly string[] = []): Promise<string | undefined> {
    for (const name of [anchor, ...otherAnchors]) {
      // One store call per name (one round trip on PostgreSQL): the direct run, else the alias's.
      const found = await this.deps.store.anchors.currentRunVia(name, anchorAliasSetting(name));
      if (found) return found;
    }
    return undefined;
  }

  /** Calls the run API under the chosen key (`call-with-key.ts`). */
  withKey<T>(choice: UsableKey, asked: KeyedCall, call: (runs: AgentRuns) => Promise<T>): Promise<T> {
    return callWithKey(this.keys, choice, asked, this.deps.logger, call);
  }

  /** `personal_required` and the asker has no key: nothing runs, and they are told how to connect one. */
  noKey(trigger: StoredTrigger, asked: KeyedCall): Settlement {
    return settle(
      { state: 'ignored', error: 'no personal API key' },
      { owed: keyProblemMessages(trigger, asked, { kind: 'no_key' }, this.keys.howToConnect(), this.surfaces) },
    );
  }

  /**
   * Why the run API may not know a run we track (a 404): it was started under another key, and the
   * run API can show a run only to the key that created it. Undefined when that is not the reason.
   */
  async hiddenFrom(runId: string, choice: UsableKey): Promise<string | undefined> {
    const run = await this.deps.store.trackedRuns.get(runId);
    if (!run || run.personalKeyOwner === choice.personalKeyOwner) return undefined;
    const whose = run.personalKeyOwner === undefined ? 'the service’s key' : 'another person’s key';
    return `run ${runId} was started under ${whose}, and the run API shows it only to that key`;
  }
}
