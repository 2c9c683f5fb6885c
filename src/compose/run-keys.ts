/**
 * Whose key each run uses, in the composition root (`people.attribution`): without
 * AGENT_BRIDGE_SECRET no personal key can exist and every request uses the service key; with it, the
 * stored keys are used as the attribution says, each through its own run API client.
 */
import { AgentApiClient, type AgentApiClientOptions } from '../agent-api/index.js';
import type { AppConfig } from '../config/types.js';
import type { AgentRuns, RunsForOwner } from '../core/ports/agent-runs.js';
import type { Clock } from '../core/ports/clock.js';
import type { PersonIdentity } from '../core/ports/identity.js';
import { serviceKeyOnly, type RunKeys } from '../core/ports/people.js';
import type { Store } from '../core/ports/store.js';
import { KeyBox } from '../people/key-box.js';
import { keyPageUrl, KEY_PAGE_PATH } from '../people/key-page.js';
import { PersonalRunKeys } from '../people/run-keys.js';
import { SURFACE_MODULES } from '../surface-list.js';
import type { SurfaceModule } from '../surface-kit/surface-module.js';

export interface RunKeyParts {
  /** The service's client (`AGENT_API_KEY`). */
  service: AgentRuns;
  /** The run API in use (the configured one, or the built-in emulator's). */
  baseUrl: string;
  store: Pick<Store, 'personKeys' | 'settings'>;
  clock: Clock;
  identity: PersonIdentity;
  /** Hooks every per-person client shares with the service's (metrics, retry logs). */
  hooks?: Pick<AgentApiClientOptions, 'onRequest' | 'onRetry'>;
}

export interface ComposedRunKeys {
  keys: RunKeys;
  /** The run API under a person's key, for the tracker. */
  forOwner: RunsForOwner;
  /** Closes the per-person clients (shutdown). */
  close(): Promise<void>;
}

/** How people are told to connect a key: the chat command in each chat surface whose users are people and that is on, and the console's key page. */
export function howToConnect(config: AppConfig, modules: readonly SurfaceModule[] = SURFACE_MODULES): string {
  const page = keyPageUrl(config.http.publicUrl) ?? KEY_PAGE_PATH;
  const console = `the console's key page (${page})`;
  const ways = modules
    .filter((module) => module.personIds && module.connectCommand && module.isOn(config))
    .map((module) => `${module.connectCommand} in ${module.title}`);
  return [...ways, console].join(' or ');
}

/** The `RunKeys` the intake worker uses and the per-key clients the tracker lists with. */
export function composeRunKeys(config: AppConfig, parts: RunKeyParts): ComposedRunKeys {
  const secret = config.people.secret;
  if (secret === undefined) return { keys: serviceKeyOnly(parts.service), forOwner: () => Promise.resolve(undefined), close: () => Promise.resolve() };
  const keys = new PersonalRunKeys({
    attribution: config.people.attribution,
    service: parts.service,
    keys: parts.store.personKeys,
    box: new KeyBox(secret),
    settings: parts.store.settings,
    clock: parts.clock,
    identity: parts.identity,
    howToConnect: howToConnect(config),
    clientFor: (apiKey) => {
      const client = new AgentApiClient({ baseUrl: parts.baseUrl, apiKey, ...parts.hooks });
      return { runs: client, close: () => client.close() };
    },
  });
  return { keys, forOwner: (personId) => keys.forOwner(personId), close: () => keys.close() };
}
