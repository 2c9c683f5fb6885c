import type { Logger } from '../core/logger.js';
import type { RunSnapshot } from '../core/messages.js';
import type { LinearApi } from './linear-api.js';

/** The workflow moves of `linear.states`: when a run starts, and when its first pull request appears. */
export interface WorkflowStates {
  started?: string;
  pull_request?: string;
}

type Move = keyof WorkflowStates;

/**
 * Moves an issue to the configured workflow state when its run starts and when a pull request
 * appears — once per run and move, remembered in the store (`done`/`remember`), so a later state or a
 * restart does not move the issue back after a person moved it on. State names are resolved per team
 * once and cached; a name a team lacks is logged once and the move skipped.
 */
export class WorkflowMover {
  private readonly issues = new Map<string, Promise<{ id: string; teamId?: string }>>();
  private readonly teamStates = new Map<string, Promise<Array<{ id: string; name: string }>>>();
  private readonly reported = new Set<string>();

  constructor(
    private readonly deps: {
      api: Pick<LinearApi, 'issue' | 'teamStates' | 'moveIssue'>;
      states: WorkflowStates;
      done: (key: string) => Promise<boolean>;
      remember: (key: string) => Promise<void>;
      logger?: Logger;
    },
  ) {}

  get enabled(): boolean {
    return Boolean(this.deps.states.started || this.deps.states.pull_request);
  }

  /** Applies the moves a run at this snapshot calls for, on the issue `identifier`. */
  async onRun(run: RunSnapshot, identifier: string): Promise<void> {
    if (this.deps.states.started) await this.move('started', run.runId, identifier);
    if (this.deps.states.pull_request && run.pullRequests.length > 0) await this.move('pull_request', run.runId, identifier);
  }

  private async move(move: Move, runId: string, identifier: string): Promise<void> {
    const key = `linear:moved:${move}:${runId}`;
    if (await this.deps.done(key)) return;
    const name = this.deps.states[move] ?? '';
    const issue = await this.issue(identifier);
    const stateId = issue.teamId ? await this.stateId(issue.teamId, name) : undefined;
    if (!stateId) {
      const once = `${issue.teamId ?? '?'}:${name}`;
      if (!this.reported.has(once)) {
        this.reported.add(once);
        this.deps.logger?.warn({ move, state: name, issue: identifier }, `linear.states.${move} names "${name}", which the issue's team does not have: the issue is not moved`);
      }
    } else {
      await this.deps.api.moveIssue(issue.id, stateId);
    }
    // Remembered after the move: a failed move is retried with the delivery; a repeated one is harmless.
    await this.deps.remember(key);
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
