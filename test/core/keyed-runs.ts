/**
 * The run API as several keys see it in owner visibility, in process and counting requests: one
 * `AgentRuns` per key over the emulator's run engine, each listing and fetching only the runs its key
 * created (the emulator's own query parsing, filtering and cursors), and any key refusable (401). For
 * tracker tests that count requests per key without thousands of HTTP round trips.
 */
import { AgentApiError, type AgentRuns, type ListRunsQuery, type RunItem, type RunPage } from '../../src/core/ports/agent-runs.js';
import { RunEngine, creatorUidFor, encodeCursor, parseListQuery, type RunCreator } from '../../src/emulator/index.js';

export const SERVICE_KEY = 'service-key';

export class KeyedRuns {
  /** Requests per key (person id, or SERVICE_KEY), failed ones too. */
  readonly requests = new Map<string, number>();
  private readonly refused = new Set<string>();
  private readonly apis = new Map<string, AgentRuns>();

  constructor(readonly engine: RunEngine) {}

  /** The key's creator, as the emulator attributes runs: the service key or a person's key. */
  creator(key: string): RunCreator {
    return { uid: creatorUidFor(key), type: key === SERVICE_KEY ? 'service_account' : 'user' };
  }

  /** Creates a run with `key`, as POST /agent/run with that key would. */
  create(key: string, prompt = 'Fix the build'): RunItem {
    return this.engine.createRun({ prompt, title: 'Fix the build', creator: this.creator(key) });
  }

  /** From now on every request with `key` answers 401 (until `accept`). */
  refuse(key: string): void {
    this.refused.add(key);
  }

  accept(key: string): void {
    this.refused.delete(key);
  }

  total(): number {
    return [...this.requests.values()].reduce((sum, n) => sum + n, 0);
  }

  clear(): void {
    this.requests.clear();
  }

  /** The run API under `key` (one object per key, as a per-person client would be). */
  api(key: string): AgentRuns {
    let api = this.apis.get(key);
    if (!api) {
      api = this.build(key);
      this.apis.set(key, api);
    }
    return api;
  }

  private build(key: string): AgentRuns {
    const uid = this.creator(key).uid;
    const request = (): void => {
      this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
      if (this.refused.has(key)) throw new AgentApiError('401: the run API refused the key', { kind: 'authentication', status: 401, retryable: false });
    };
    const unused = (): never => {
      throw new Error('not used by the tracker');
    };
    return {
      listRuns: async (query: ListRunsQuery = {}): Promise<RunPage> => {
        request();
        const params = new URLSearchParams();
        for (const [name, value] of Object.entries(query)) {
          for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) params.append(name, String(one));
        }
        const result = this.engine.list({ ...parseListQuery(params), visibleTo: uid });
        return { runs: result.runs, page_info: result.next ? { has_next_page: true, next_cursor: encodeCursor(result.next) } : { has_next_page: false } };
      },
      getRun: async (runId: string): Promise<RunItem> => {
        request();
        const run = this.engine.get(runId);
        if (!run || this.engine.creatorOf(runId)?.uid !== uid)
          throw new AgentApiError(`run ${runId} not found`, { kind: 'not_found', status: 404, retryable: false });
        return run;
      },
      createRun: unused,
      dispatchToFactory: unused,
      allRuns: unused,
      sendFollowup: unused,
      cancelRun: unused,
    };
  }
}
