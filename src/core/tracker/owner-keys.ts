/**
 * The keys the tracker watches runs with. The run API may show a run only to
 * the key that created it, so a run a person started with their own key is listed and fetched with
 * that key, and every other run with the service key.
 *
 * A person whose key cannot be used this tick — none connected any more, or the run API refused it
 * (401/403) — is left out for the rest of the tick: their runs stay tracked, untouched, and are
 * tried again next tick with ONE list request, never one request per run. That is said once at warn
 * (until the key works again), not at every tick.
 */
import { isAgentApiError, type AgentApiError, type AgentRuns, type RunsForOwner } from '../ports/agent-runs.js';
import type { Logger } from '../ports/logger.js';

/** Refusals of a key, as opposed to the run API being unavailable. */
export function isKeyRefused(error: unknown): error is AgentApiError {
  return isAgentApiError(error) && (error.kind === 'authentication' || error.kind === 'permission');
}

/** Resolves people's keys once per tick and remembers who was already warned about. */
export class OwnerKeys {
  /** This tick: each person's run API, or undefined when their key cannot be used. */
  private tick = new Map<string, AgentRuns | undefined>();
  /** People warned about since their key last worked (so each episode is logged once). */
  private readonly warned = new Set<string>();

  constructor(
    private readonly service: AgentRuns,
    private readonly runsForOwner: RunsForOwner | undefined,
    private readonly logger: Logger,
  ) {}

  /** True when people's runs are watched with their own keys (otherwise everything uses the service key). */
  get perKey(): boolean {
    return this.runsForOwner !== undefined;
  }

  /** Forgets the previous tick's answers: every key is tried again. */
  startTick(): void {
    this.tick = new Map();
  }

  /**
   * The run API to watch a run with: the service key for a run without `personalKeyOwner` (or when keys are
   * not per person), else the owner's key; undefined when that key cannot be used this tick.
   */
  async runsFor(personalKeyOwner: string | undefined): Promise<AgentRuns | undefined> {
    if (personalKeyOwner === undefined || !this.runsForOwner) return this.service;
    if (this.tick.has(personalKeyOwner)) return this.tick.get(personalKeyOwner);
    let runs: AgentRuns | undefined;
    try {
      runs = await this.runsForOwner(personalKeyOwner);
    } catch (error) {
      // A key that cannot be opened (e.g. sealed under another secret) is that person's problem only.
      this.unusable(personalKeyOwner, 'their key could not be opened', { err: error });
      return undefined;
    }
    if (runs === undefined) this.unusable(personalKeyOwner, 'no key is connected any more');
    else this.tick.set(personalKeyOwner, runs);
    return runs;
  }

  /** The run API refused the person's key: nothing more with it this tick; warned once. True the first time (until it works again). */
  refused(personalKeyOwner: string, error: AgentApiError): boolean {
    return this.unusable(personalKeyOwner, 'the run API refused their key', { status: error.status, code: error.code });
  }

  /** The person's key worked: a later refusal is news again. */
  worked(personalKeyOwner: string): void {
    if (this.warned.delete(personalKeyOwner)) this.logger.info({ person: personalKeyOwner }, 'a person’s key works again; their runs are followed');
  }

  private unusable(personalKeyOwner: string, why: string, fields: Record<string, unknown> = {}): boolean {
    this.tick.set(personalKeyOwner, undefined);
    if (this.warned.has(personalKeyOwner)) return false;
    this.warned.add(personalKeyOwner);
    this.logger.warn({ person: personalKeyOwner, ...fields }, `cannot follow a person’s runs: ${why}; they stay tracked and are tried again each tick`);
    return true;
  }
}
