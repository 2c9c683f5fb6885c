import { AgentApiClient } from '../agent-api/index.js';
import { UsageError } from './exit-codes.js';

/** What every command gets: where to write, the environment (real env over `.env`), and time. */
export interface CliContext {
  out: (text: string) => void;
  err: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** A client for the run API named by AGENT_API_BASE_URL / AGENT_API_KEY, or a usage error saying what to set. */
export function clientFromEnv(context: CliContext): AgentApiClient {
  const baseUrl = context.env['AGENT_API_BASE_URL'];
  const apiKey = context.env['AGENT_API_KEY'];
  if (!baseUrl) {
    throw new UsageError(
      'AGENT_API_BASE_URL is not set: set it to the run API base ending in /api/v1 (in the environment or .env), ' +
        'or start a local one with `agent-bridge emulator --port 4010 --api-key KEY` and use http://127.0.0.1:4010/api/v1',
    );
  }
  if (!/^https?:\/\/[^/]+/.test(baseUrl)) {
    throw new UsageError(`AGENT_API_BASE_URL must be an http(s) URL ending in /api/v1, e.g. http://127.0.0.1:4010/api/v1`);
  }
  if (!apiKey) throw new UsageError('AGENT_API_KEY is not set: set it to the run API key (it is sent as a bearer token)');
  return new AgentApiClient({ baseUrl, apiKey });
}

/** Runs `work` with a client and always closes its connections. */
export async function withClient<T>(context: CliContext, work: (client: AgentApiClient) => Promise<T>): Promise<T> {
  const client = clientFromEnv(context);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

/**
 * Writes one line at a time to `stream` (stdout or stderr) until its reader is gone: a reader that
 * stops early (`agent-bridge config check | head -1`) closes the pipe, and the next write fails with
 * EPIPE. That is no error of the command's: the rest of the output is dropped, and `readerGone` is
 * called once. Any other write error is thrown, as it would be without this.
 */
export function lineWriter(stream: NodeJS.WritableStream, readerGone: () => void = () => {}): (text: string) => void {
  let gone = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    if (gone) return;
    gone = true;
    readerGone();
  });
  return (text) => {
    if (!gone) stream.write(`${text}\n`);
  };
}

export function printJson(context: CliContext, value: unknown): void {
  context.out(JSON.stringify(value, null, 2));
}
