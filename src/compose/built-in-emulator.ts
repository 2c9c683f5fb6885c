/**
 * The built-in emulator the service runs when no run API is configured (`AGENT_API_BASE_URL` unset):
 * its API on a random loopback port, for this process alone; its runs kept beside the SQLite database
 * (`<database name>.emulator-runs.json`), so a restart forgets none; and its session pages served on
 * the service's own port under `/emulator/sessions/`, so a session link stays the same across restarts.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, dirname, extname, join } from 'node:path';
import type { AppConfig, DatabaseConfig } from '../config/types.js';
import type { Logger } from '../core/ports/logger.js';
import { startEmulator, type RunningEmulator } from '../emulator/index.js';
import { keepRunsInFile, type RunFile } from '../emulator/run-file.js';
import type { Endpoint } from '../http/server.js';

/** Where the service serves the emulator's session pages. */
export const EMULATOR_PATH = '/emulator';

export interface BuiltInEmulator {
  running: RunningEmulator;
  /** `GET /emulator/sessions/<id>` on the service's server: the session pages, nothing of the API. */
  sessions: Endpoint;
  /** Where the runs are kept across restarts; undefined: in memory only. */
  runsFile: string | undefined;
  /** Tells it the service's address once it listens (needed when the port was chosen at random). */
  listening(serviceUrl: string): void;
  /** Stops it, writing the runs one last time. */
  close(): Promise<void>;
}

/** The file beside a SQLite database where its built-in emulator keeps its runs; none in memory or on PostgreSQL. */
export function emulatorRunsFile(database: DatabaseConfig): string | undefined {
  if (database.kind !== 'sqlite' || database.path === ':memory:') return undefined;
  return join(dirname(database.path), `${basename(database.path, extname(database.path))}.emulator-runs.json`);
}

/** The base of session links: `PUBLIC_URL`, else the configured port on this machine; undefined until a random port is known. */
function sessionBase(http: AppConfig['http'], serviceUrl?: string): string | undefined {
  if (http.publicUrl) return `${http.publicUrl}${EMULATOR_PATH}`;
  const loopback = ['0.0.0.0', '::', '', 'localhost'].includes(http.host) ? '127.0.0.1' : http.host.includes(':') ? `[${http.host}]` : http.host;
  if (http.port !== 0) return `http://${loopback}:${http.port}${EMULATOR_PATH}`;
  return serviceUrl && `${serviceUrl.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//127.0.0.1:')}${EMULATOR_PATH}`;
}

/** Starts the built-in emulator, taking back the runs it kept; says loudly what it is and what it keeps. */
export async function startBuiltInEmulator(config: AppConfig, logger: Logger): Promise<{ baseUrl: string; apiKey: string; emulator: BuiltInEmulator }> {
  const apiKey = randomBytes(16).toString('hex');
  const base = sessionBase(config.http);
  // Personal keys can be tried against it too: it is a simulation bound to 127.0.0.1.
  const running = await startEmulator({ apiKey, port: 0, host: '127.0.0.1', acceptAnyKey: true, ...(base && { publicUrl: base }) });
  const runsFile = emulatorRunsFile(config.database);
  const problem = (message: string) => logger.warn({ runsFile }, message);
  const kept: RunFile | undefined = runsFile ? keepRunsInFile(running.engine, runsFile, problem) : undefined;
  logger.warn(
    { emulator: running.baseUrl, runsKept: runsFile ?? 'in memory only', sessionPages: `${base ?? EMULATOR_PATH}/sessions/…` },
    'AGENT_API_BASE_URL is not set: using the BUILT-IN RUN-API EMULATOR — runs are simulated, no agent does real work. ' +
      (runsFile
        ? `Its runs are kept in ${runsFile} (${kept?.loaded ?? 0} taken back at this start; a run under way when the service stopped goes on) and their session pages are served by this service under ${EMULATOR_PATH}/sessions/, so both survive a restart. `
        : 'Its runs are kept in memory only (the database is not a SQLite file): they and their session pages are gone when the service stops. ') +
      'Set AGENT_API_BASE_URL and AGENT_API_KEY to use the real Cloud Agent Run API.',
  );
  const sessions: Endpoint = {
    method: 'GET',
    path: `${EMULATOR_PATH}/sessions`,
    prefix: true,
    handle: (req: IncomingMessage, res: ServerResponse) => {
      // The emulator's own paths: `/sessions/<id>`. Nothing else of it (its API, its testing endpoints) is reachable here.
      req.url = (req.url ?? '').slice(EMULATOR_PATH.length);
      running.handler(req, res);
    },
  };
  return {
    baseUrl: running.baseUrl,
    apiKey,
    emulator: {
      running,
      sessions,
      runsFile,
      listening: (serviceUrl) => {
        const known = sessionBase(config.http, serviceUrl);
        if (known) running.engine.setPublicUrl(known);
      },
      close: async () => {
        await running.close();
        kept?.flush();
        kept?.stop();
      },
    },
  };
}
