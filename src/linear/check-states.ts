import type { LinearApi } from './linear-api.js';
import type { WorkflowStates } from './workflow-states.js';

export interface StateCheck {
  /** Names no checked team has: surely a typo (`config check` fails). */
  problems: string[];
  /** Names some teams lack: those teams' issues are not moved (said once at run time too). */
  warnings: string[];
  /** What was checked, for the summary. */
  checked: string[];
}

/**
 * Checks `linear.states` against the workspace: each named state must exist in the teams agent-bridge
 * serves (`linear.teams`, or all teams). Names compare case-insensitively, as the mover does.
 */
export async function checkWorkflowStates(api: Pick<LinearApi, 'teams'>, teams: readonly string[], states: WorkflowStates): Promise<StateCheck> {
  const result: StateCheck = { problems: [], warnings: [], checked: [] };
  const moves = Object.entries(states).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  if (moves.length === 0) return result;
  const found = await api.teams(teams);
  for (const key of teams) {
    if (!found.some((team) => team.key.toLowerCase() === key.toLowerCase())) result.problems.push(`linear.teams: Linear has no team with the key "${key}"`);
  }
  for (const [move, name] of moves) {
    const wanted = name.trim().toLowerCase();
    const lacking = found.filter((team) => !team.states.some((state) => state.trim().toLowerCase() === wanted));
    result.checked.push(`linear.states.${move} "${name}": ${found.length - lacking.length} of ${found.length} team(s)`);
    if (found.length > 0 && lacking.length === found.length) {
      const known = [...new Set(found.flatMap((team) => team.states))].slice(0, 12).join(', ');
      result.problems.push(`linear.states.${move}: no team has a workflow state named "${name}" (states there: ${known || 'none'})`);
    } else if (lacking.length > 0) {
      result.warnings.push(`linear.states.${move}: team(s) ${lacking.map((team) => team.key).join(', ')} have no state "${name}"; their issues are not moved`);
    }
  }
  return result;
}
