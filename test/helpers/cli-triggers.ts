import type { AgentRuns, CreatedRun, CreateRunRequest } from '../../src/core/ports/agent-runs.js';
import type { TriggerInput } from '../../src/core/ports/triggers.js';

/**
 * A start trigger as `agent-bridge run` submits it: `prompt` (also its title), shown at `anchor`
 * (default `test:<key>`, the test notifier's platform).
 */
export function cliStart(key: string, prompt: string, anchor = `test:${key}`): TriggerInput {
  return { kind: 'start', key, source: 'cli', anchor, payload: { prompt, title: prompt, origin: { source: 'cli' }, destinations: [anchor] } };
}

/**
 * `runs` with its createRun replaced by `createRun` (which gets the original one to call): for a
 * test that holds or counts creates and lets every other call through untouched.
 */
export function withCreateRun(runs: AgentRuns, createRun: (request: CreateRunRequest, original: AgentRuns) => Promise<CreatedRun>): AgentRuns {
  return {
    createRun: (request) => createRun(request, runs),
    dispatchToFactory: (factoryUid, request) => runs.dispatchToFactory(factoryUid, request),
    listRuns: (query) => runs.listRuns(query),
    allRuns: (query) => runs.allRuns(query),
    getRun: (runId) => runs.getRun(runId),
    sendFollowup: (runId, message) => runs.sendFollowup(runId, message),
    cancelRun: (runId) => runs.cancelRun(runId),
  };
}
