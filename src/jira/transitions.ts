import type { Logger } from '../core/ports/logger.js';
import type { RunSnapshot } from '../core/ports/messages.js';
import type { JiraApi } from './jira-api.js';

/** `jira.states`: the transitions made when a run starts, and when its first pull request appears. */
export interface JiraStates {
  started?: string;
  pull_request?: string;
}

export type Move = keyof JiraStates;

/**
 * Moves an issue through its workflow (`jira.states`) by transition name — the transition's own name
 * or the status it leads to, case-insensitive — once per run and move, remembered with the run (its
 * `workflowMoves`, as Linear's moves), so a later state, a restart or a run continued weeks later
 * does not move the issue back after a person moved it on. A name the issue's workflow does not offer
 * from where it stands is logged once per name and the move skipped.
 */
export class JiraTransitions {
  private readonly reported = new Set<string>();

  constructor(
    private readonly deps: {
      api: Pick<JiraApi, 'transitions' | 'transition'>;
      states: JiraStates;
      done: (runId: string, move: Move) => Promise<boolean>;
      remember: (runId: string, move: Move) => Promise<void>;
      logger?: Logger;
    },
  ) {}

  get enabled(): boolean {
    return Boolean(this.deps.states.started || this.deps.states.pull_request);
  }

  /** Applies the moves a run at this snapshot calls for, on the issue `issueKey`. */
  async onRun(run: RunSnapshot, issueKey: string): Promise<void> {
    if (this.deps.states.started) await this.move('started', run.runId, issueKey);
    if (this.deps.states.pull_request && run.pullRequests.length > 0) await this.move('pull_request', run.runId, issueKey);
  }

  private async move(move: Move, runId: string, issueKey: string): Promise<void> {
    if (await this.deps.done(runId, move)) return;
    const wanted = (this.deps.states[move] ?? '').trim().toLowerCase();
    const offered = await this.deps.api.transitions(issueKey);
    const found =
      offered.find((transition) => transition.name.trim().toLowerCase() === wanted) ??
      offered.find((transition) => transition.to?.trim().toLowerCase() === wanted);
    if (found) {
      await this.deps.api.transition(issueKey, found.id);
    } else if (!this.reported.has(wanted)) {
      this.reported.add(wanted);
      this.deps.logger?.warn(
        { move, transition: this.deps.states[move], issue: issueKey },
        `jira.states.${move} names a transition the issue's workflow does not offer from its status: the issue is not moved`,
      );
    }
    // Remembered after the move: a failed move is retried with the delivery; a repeated one is harmless.
    await this.deps.remember(runId, move);
  }
}
