/**
 * Step 7 of the composition root (`main.ts`): the HTTP server — health and metrics, the surfaces'
 * webhook routes, the web console — stopped first so no new request arrives while the workers finish.
 */
import { runApiProbe } from '../agent-api/readiness-probe.js';
import type { AgentRuns } from '../core/ports/agent-runs.js';
import type { Store } from '../core/ports/store.js';
import type { Scheduler } from '../core/schedules/scheduler.js';
import type { AckFirst } from '../http/ack-first.js';
import type { RequestTurns } from '../http/request-turns.js';
import type { Metrics } from '../http/metrics.js';
import { createHttpServer, listen } from '../http/server.js';
import { consoleIntegration, type watchTracker } from './console.js';
import { displayNames } from './display-names.js';
import type { openFrontDoor } from './front-door.js';
import { serviceEndpoints } from './endpoints.js';
import type { agentApiEndpoint } from './run-api-endpoint.js';
import { keyRemovedNotice, runsForKey } from './people.js';
import type { ServiceBase } from './service-base.js';

/** What the HTTP server serves and checks. */
export interface HttpParts {
  store: Store;
  metrics: Metrics;
  api: Awaited<ReturnType<typeof agentApiEndpoint>>;
  agentRuns: AgentRuns;
  front: Awaited<ReturnType<typeof openFrontDoor>>;
  scheduler: Scheduler;
  loops: { wakeOutbox(): void; wakeIntake(): void };
  lastTick: ReturnType<typeof watchTracker>['lastTick'];
  ackFirst: AckFirst;
  /** The turns the routes' handlers start in (also the store's group commit, main.ts). */
  turns: RequestTurns;
}

/** 7. Serves the routes and the console; resolves with where it listens and what to announce. */
export async function serveHttp({ config, logger, clock, shutdown }: ServiceBase, parts: HttpParts) {
  const { store, metrics, api, front, loops } = parts;
  const people = front.surfaces.peopleDirectories();
  const anyPeople = Object.keys(people).length > 0;
  // The workspace the console's sign-in keeps to: the first chat surface that knows its own.
  const workspace = Object.entries(people)
    .map(([surface, directory]) => (directory.workspace === undefined ? undefined : { surface, id: directory.workspace }))
    .find((known) => known !== undefined);
  const probe = runApiProbe(api);
  shutdown.add('readiness probe', () => probe.close());
  const routes = serviceEndpoints({
    checks: [
      { name: 'database', check: () => store.ping() },
      { name: 'agent_api', check: () => probe.check() },
    ],
    metrics,
    logger,
    now: () => clock.now(),
    ...(config.http.metricsToken !== undefined && { metricsToken: config.http.metricsToken }),
    surfaces: front.surfaces.endpoints(),
  });
  const webConsole = await consoleIntegration(config, {
    store,
    clock,
    logger: logger.child({ component: 'console' }),
    intake: front.intake,
    runs: parts.agentRuns,
    triggerSchedule: (name) => parts.scheduler.trigger(name),
    wakeOutbox: () => loops.wakeOutbox(),
    wakeIntake: () => loops.wakeIntake(),
    lastTick: parts.lastTick,
    // A key connected on the console is checked with the run API in use: the built-in emulator's too.
    runsFor: runsForKey(api.baseUrl),
    ...(anyPeople && { names: displayNames(people, clock), keyRemoved: keyRemovedNotice(people) }),
    ...(workspace && { workspace }),
  });
  const emulatorPages = api.emulator ? [api.emulator.sessions] : [];
  const http = await listen(
    createHttpServer({ routes: [...routes, ...emulatorPages, ...webConsole.routes], metrics, logger, clock, ackFirst: parts.ackFirst, turns: parts.turns }),
    config.http.port,
    config.http.host,
  );
  shutdown.add('http', () => http.close());
  api.emulator?.listening(http.url);
  return { url: http.url, webConsole };
}
