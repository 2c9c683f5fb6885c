import { AgentApiError } from './ports/agent-runs.js';

/**
 * One sentence for a person: what went wrong with the run API and what to do about it. Used by the
 * CLI, logs and (later) the surfaces' failure messages, so every surface says the same thing.
 * Built from the error's kind and the server's detail only: never a header, never the key.
 */
export function explainAgentApiError(error: AgentApiError): string {
  const detail = error.detail ? ` (${error.detail})` : '';
  switch (error.kind) {
    case 'authentication':
      return `${error.status}: the run API refused the key; check AGENT_API_KEY`;
    case 'permission':
      return `${error.status}: the run API does not allow this for this key${detail}; check the key's team and the environment or agent it names`;
    case 'not_found':
      return `${error.status}: the run API does not know this run${detail}; check the run id`;
    case 'bad_request':
      return `${error.status}: the run API rejected the request${detail}`;
    case 'conflict':
      return `${error.status}: the run is still being prepared${detail}; try again in a few seconds`;
    case 'unprocessable':
      return `${error.status}: the run API does not support this operation${detail}`;
    case 'rate_limited': {
      const wait = error.retryAfterMs !== undefined ? `; retry after ${Math.ceil(error.retryAfterMs / 1000)} s` : '; retry shortly';
      return `${error.status}: the run API is at capacity${wait}`;
    }
    case 'server':
      return `${error.status}: the run API failed on its side${detail}; this is usually temporary, try again`;
    case 'connection':
      return 'could not reach the run API; check AGENT_API_BASE_URL and that the service is up';
    case 'timeout':
      return 'the run API did not answer in time; it may be overloaded, try again';
    case 'invalid_response':
      return `the run API sent an answer this version cannot read: ${error.message}`;
    case 'unexpected_status':
      return `${error.status}: the run API answered unexpectedly${detail}`;
  }
}

/** Same, for any thrown value: a typed run-API error is explained, anything else keeps its message. */
export function explainError(error: unknown): string {
  if (error instanceof AgentApiError) return explainAgentApiError(error);
  return error instanceof Error ? error.message : String(error);
}
