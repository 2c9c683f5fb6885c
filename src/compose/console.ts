/**
 * The web console in the composition root: on or off from the config (`console/console-config.ts`),
 * its routes on the one HTTP server, the facts of its health page, and the start log's sign-in line.
 */
import { packageVersion } from '../host/version.js';
import type { AppConfig } from '../config/types.js';
import { consoleAccess } from '../console/console-config.js';
import type { ConsoleDeps, HealthReport } from '../console/deps.js';
import { consoleEndpoints } from '../console/endpoints.js';
import { routeChoices } from '../console/route-choices.js';
import { consoleSigningKey } from '../console/signing-key.js';
import type { Clock } from '../core/ports/clock.js';
import type { Logger } from '../core/ports/logger.js';
import type { CoreMetrics } from '../core/ports/metrics.js';
import { cronCalendar } from '../cron-calendar/cron-calendar.js';
import { notConfiguredEndpoint } from '../http/health-endpoints.js';
import type { Endpoint } from '../http/server.js';
import { redirect } from '../console/http-io.js';
import { describeDatabase } from '../store/open-store.js';
import type { RunsForKey } from '../people/key-check.js';
import { consoleKeys } from './people.js';
import { emulatorRunsFile } from './built-in-emulator.js';
import { registeredSurfaces } from './surfaces.js';
import { SURFACE_MODULES, type SurfaceName } from '../surface-list.js';
import type { SurfaceModule } from '../surface-kit/surface-module.js';

type LastTick = { at: number; requests: number; changed: number; tracked: number };

/** Core metrics that also remember the tracker's last tick in this process (the health page shows it). */
export function watchTracker(metrics: CoreMetrics, clock: Clock): { metrics: CoreMetrics; lastTick: () => LastTick | undefined } {
  let last: LastTick | undefined;
  return {
    metrics: {
      ...metrics,
      trackerTick: (report) => {
        last = { at: clock.now(), ...report };
        metrics.trackerTick(report);
      },
    },
    lastTick: () => last,
  };
}

/** The health page's integrations: a row for every registered surface, on or off, and the schedules. */
export function integrations(config: AppConfig): HealthReport['integrations'] {
  const surfaces: readonly SurfaceModule[] = SURFACE_MODULES;
  return [
    ...surfaces.map((surface) => {
      const section = config[surface.name as SurfaceName];
      return { name: surface.title, on: section.enabled, why: surface.healthNote(section) };
    }),
    { name: 'Schedules', on: config.schedules.length > 0, why: `${config.schedules.length} configured` },
  ];
}

export interface ConsoleParts extends Omit<ConsoleDeps, 'schedules' | 'health' | 'keys' | 'linkable' | 'routes' | 'defaults'> {
  lastTick: () => LastTick | undefined;
  /** A run API client per personal key (to check a key before it is stored); default: AGENT_API_BASE_URL's. */
  runsFor?: RunsForKey;
}

/** The built-in emulator on the health page, with what it keeps across a restart. */
function builtInEmulatorWords(config: AppConfig): string {
  const file = emulatorRunsFile(config.database);
  return `the built-in emulator (AGENT_API_BASE_URL is not set; runs are simulated): its runs are kept ${
    file ? `in ${file} across restarts` : 'in memory only, and are gone when the service stops'
  }`;
}

/**
 * `GET /`: where a person who typed the service's address lands — the console when it is on; else a
 * few plain lines saying what this is and where its health and console are (`consoleOff` says why it is off).
 */
function rootEndpoint(consoleOff: string | undefined): Endpoint {
  if (consoleOff === undefined) return { method: 'GET', path: '/', handle: (_req, res) => redirect(res, '/console') };
  const text = [
    'agent-bridge: turns chat mentions, issue labels and schedules into runs of a cloud coding agent.',
    'Health: /healthz (alive), /readyz (ready to work), /metrics (Prometheus).',
    `Web console: /console is off here; ${consoleOff}.`,
    '',
  ].join('\n');
  return {
    method: 'GET',
    path: '/',
    handle: (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), 'x-content-type-options': 'nosniff' });
      res.end(text);
    },
  };
}

/**
 * The console's routes (or a 404 on /console saying how to turn it on) with `GET /`, and what to log once listening.
 * Reads (or, the first time, stores) the sessions' signing key in the database when
 * AGENT_BRIDGE_SECRET is not set.
 */
export async function consoleIntegration(
  config: AppConfig,
  parts: ConsoleParts,
): Promise<{ routes: Endpoint[]; announce: (logger: Logger, url: string) => void }> {
  const access = consoleAccess(config);
  if (access.mode === 'off') {
    // Said at every start: a trial that gains a real run API (AGENT_API_BASE_URL in .env) loses its console without a word otherwise.
    const announce = (logger: Logger) => logger.info({ console: 'off' }, `web console is off: ${access.why}`);
    return { routes: [{ ...notConfiguredEndpoint('/console', 'The web console', access.why), method: 'GET' }, rootEndpoint(access.why)], announce };
  }
  const version = packageVersion();
  const health = (): Promise<HealthReport> => {
    const tick = parts.lastTick();
    return Promise.resolve({
      version,
      store: `${config.database.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} at ${describeDatabase(config.database)}`,
      runApi: config.agentApi.emulated ? builtInEmulatorWords(config) : (config.agentApi.baseUrl ?? ''),
      integrations: integrations(config),
      tracker: {
        lastTickAt: tick?.at ?? null,
        requests: tick?.requests ?? null,
        changed: tick?.changed ?? null,
        tracked: tick?.tracked ?? null,
        intervalMs: config.tracker.intervalMs,
      },
    });
  };
  const schedules = config.schedules.map((schedule) => ({ ...schedule, calendar: cronCalendar(schedule.cron, schedule.timezone) }));
  const keys = consoleKeys(config, parts.store.personKeys, parts.runsFor);
  const signingKey = await consoleSigningKey(access, { serviceSecret: config.people.secret, sessions: parts.store.consoleSessions, now: parts.clock.now() });
  const linkable = registeredSurfaces(config)
    .all()
    .flatMap(({ name, title, users }) => (users ? [{ name, title, users }] : []));
  const { routes, oneTimePath } = consoleEndpoints(
    access,
    { ...parts, schedules, health, linkable, routes: routeChoices(config), defaults: config.defaults, ...(keys && { keys }) },
    signingKey,
  );
  return {
    routes: [...routes, rootEndpoint(undefined)],
    announce(logger, url) {
      const base = access.publicUrl ?? url.replace('//0.0.0.0:', '//127.0.0.1:');
      if (oneTimePath) logger.info({ console: `${base}/console` }, `web console: sign in once with ${base}${oneTimePath}`);
      else {
        const ways = [...access.providers.map(({ provider }) => `with ${provider.platform}`), ...(access.mode === 'token' ? ['with CONSOLE_ADMIN_TOKEN'] : [])];
        logger.info({ console: `${base}/console` }, `web console is on (sign in ${ways.join(' or ')})`);
      }
      for (const { provider } of access.providers) logger.info({ ...provider.logFields }, `${provider.name} is on`);
    },
  };
}
