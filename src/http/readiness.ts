import type { Logger } from '../core/ports/logger.js';

/** One readiness check: resolves when the dependency answers, throws (with a safe message) when not. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/** A check's latest outcome; `detail` is for the log and the operator, never for anonymous callers. */
export interface CheckOutcome {
  name: string;
  ok: boolean;
  detail?: string;
}

/** How long a check's outcome is reused: /readyz is anonymous and must not drive upstream traffic. */
export const READINESS_TTL_MS = 5_000;

interface Entry {
  outcome?: CheckOutcome;
  at: number;
  running?: Promise<CheckOutcome>;
}

/**
 * Runs readiness checks for `/readyz` at most once per `ttlMs` each, whatever the traffic: an outcome
 * is reused for `ttlMs`, and callers that arrive while a check runs share it. A change of outcome is
 * logged once (warn with the detail when a check starts failing or its reason changes, info when it
 * recovers), not once per request.
 */
export class CachedReadiness {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly checks: readonly ReadinessCheck[],
    private readonly options: { now: () => number; logger: Logger; ttlMs?: number; onOutcome?: (outcome: CheckOutcome) => void },
  ) {}

  /** Every check's outcome, fresh or at most `ttlMs` old. */
  outcomes(): Promise<CheckOutcome[]> {
    return Promise.all(this.checks.map((check) => this.outcome(check)));
  }

  private outcome(check: ReadinessCheck): Promise<CheckOutcome> {
    const entry = this.entries.get(check.name) ?? { at: 0 };
    this.entries.set(check.name, entry);
    if (entry.running) return entry.running;
    if (entry.outcome && this.options.now() - entry.at < (this.options.ttlMs ?? READINESS_TTL_MS)) return Promise.resolve(entry.outcome);
    const running = this.run(check).then((outcome) => {
      this.changed(entry.outcome, outcome);
      entry.outcome = outcome;
      entry.at = this.options.now();
      delete entry.running;
      this.options.onOutcome?.(outcome);
      return outcome;
    });
    entry.running = running;
    return running;
  }

  private async run(check: ReadinessCheck): Promise<CheckOutcome> {
    try {
      await check.check();
      return { name: check.name, ok: true };
    } catch (error) {
      return { name: check.name, ok: false, detail: error instanceof Error ? error.message : String(error) };
    }
  }

  private changed(before: CheckOutcome | undefined, after: CheckOutcome): void {
    if (!after.ok && (before?.ok !== false || before.detail !== after.detail)) {
      this.options.logger.warn({ check: after.name, reason: after.detail }, 'readiness check failed');
    } else if (after.ok && before?.ok === false) {
      this.options.logger.info({ check: after.name }, 'readiness check passes again');
    }
  }
}
