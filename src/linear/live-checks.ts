/**
 * What `config check` asks the Linear workspace (unless `--offline`): whether the workflow states
 * `linear.states` names exist in the teams served. Loaded by the CLI only when Linear is on, since it
 * brings the Linear SDK.
 */
import type { LiveCheck } from '../surface-kit/surface-module.js';
import type { LinearSection } from './config/section.js';

/** The states check as `config check` says it: a state name no team has is a problem; unreachable Linear is only said. */
export async function linearLiveChecks(linear: LinearSection): Promise<LiveCheck> {
  const credentials = linear.accessToken ? { accessToken: linear.accessToken } : linear.apiKey ? { apiKey: linear.apiKey } : undefined;
  if (!linear.enabled || !credentials || Object.keys(linear.states).length === 0) return { lines: [] };
  const [{ LinearClient }, { sdkLinearApi }, { checkWorkflowStates }, { linearErrorType }] = await Promise.all([
    import('@linear/sdk'),
    import('./linear-api.js'),
    import('./check-states.js'),
    import('./linear-errors.js'),
  ]);
  let check;
  try {
    check = await checkWorkflowStates(sdkLinearApi(new LinearClient({ ...credentials, apiUrl: linear.apiUrl })), linear.teams, linear.states);
  } catch (error) {
    return {
      lines: [`Linear workflow states: not checked, Linear did not answer (${linearErrorType(error) ?? 'connection failed'}); run again, or pass --offline`],
    };
  }
  return { lines: check.checked.map((line) => `Linear workflow states: ${line}`), problems: check.problems, warnings: check.warnings };
}
