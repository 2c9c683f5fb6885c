import type { Logger } from '../core/ports/logger.js';
import type { RunSnapshot } from '../core/ports/messages.js';
import type { LinearApi } from './linear-api.js';

/** The workflow moves of `linear.states`: when a run starts, and when its first pull request appears. */
export interface WorkflowStates {
  started?: string;
  pull_request?: string;
}

/** A workflow move: when a run starts, when its first pull request appears. */
export type Move = keyof WorkflowStates;

/**
 * Moves an issue to the configured workflow state when its run starts and when a pull request
 * appears — once per run and move, remembered with the run (`done`/`remember`, the run's
 * `workflowMoves`), so a later state, a restart or a run continued weeks later does not move the issue
 * back after a person moved it on. State names are resolved per team once and cached; a name a team
 * lacks is logged once and the move skipped.
 */
export class WorkflowMover {
  private readonly issues = new Map<string, Promise<{ id: string; teamId?: string }>>();
  private readonly teamStates = new Map<string, Promise<Array<{ id: string; name: string }>>>();
  private readonly reported = new Set<string>();

  constructor(
    private readonly deps: {
      api: Pick<LinearApi, 'issue' | 'teamStates' | 'moveIssue'>;
      states: WorkflowStates;
      /** Whether the move was already made for the run. */
      done: (runId: string, move: Move) => Promise<boolean>;
      /** Remembers that the move was made for the run. */
      remember: (runId: string, move: Move) => Promise<void>;
      logger?: Logger;
    },
  ) {}

  get enabled(): boolean {
    return Boolean(this.deps.states.started || this.deps.states.pull_request);
  }

  /** Applies the moves a run at this snapshot calls for, on the issue `issue` (its id, or its identifier). */
  async onRun(run: RunSnapshot, issue: string): Promise<void> {
    if (this.deps.states.started) await this.move('started', run.runId, issue);
    if (this.deps.states.pull_request && run.pullRequests.length > 0) await this.move('pull_request', run.runId, issue);
  }

  private async move(move: Move, runId: string, issueKey: string): Promise<void> {
    if (await this.deps.done(runId, move)) return;
    const name = this.deps.states[move] ?? '';
    const issue = await this.issue(issueKey);
    const stateId = issue.teamId ? await this.stateId(issue.teamId, name) : undefined;
    if (!stateId) {
      const once = `${issue.teamId ?? '?'}:${name}`;
      if (!this.reported.has(once)) {
        this.reported.add(once);
        this.deps.logger?.warn(
          { move, state: name, issue: issueKey },
          `linear.states.${move} names "${name}", which the issue's team does not have: the issue is not moved`,
        );
      }
    } else {
      await this.deps.api.moveIssue(issue.id, stateId);
    }
    // Remembered after the move: a failed move is retried with the delivery; a repeated one is harmless.
    await this.deps.remember(runId, move);
  }

  private issue(identifier: string): Promise<{ id: string; teamId?: string }> {
    let found = this.issues.get(identifier);
    if (!found) {
      found = this.deps.api.issue(identifier, 0).then((issue) => ({ id: issue.id, ...(issue.team && { teamId: issue.team.id }) }));
      found.catch(() => this.issues.delete(identifier));
      this.issues.set(identifier, found);
    }
    return found;
  }

  private async stateId(teamId: string, name: string): Promise<string | undefined> {
    let states = this.teamStates.get(teamId);
    if (!states) {
      states = this.deps.api.teamStates(teamId);
      states.catch(() => this.teamStates.delete(teamId));
      this.teamStates.set(teamId, states);
    }
    const wanted = name.trim().toLowerCase();
    return (await states).find((state) => state.name.trim().toLowerCase() === wanted)?.id;
  }
}
