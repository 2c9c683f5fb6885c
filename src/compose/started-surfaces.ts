/**
 * The registered surfaces once started (step 4 of the composition root): what the other steps take
 * from them — routes, notifiers, context readers, requester checks, issue linkers, the people
 * directory — gathered by surface name, so no step names a surface.
 */
import type { AppConfig } from '../config/types.js';
import { allowEveryone, type AccessPolicy, type PromptEnricher, type RequesterCheck } from '../core/ports/intake.js';
import type { IssueLinker } from '../core/ports/issue-links.js';
import type { Notifier, SessionPlaces } from '../core/ports/notifier.js';
import type { StoredTrigger } from '../core/ports/store.js';
import type { Endpoint } from '../http/server.js';
import { PERSON_IDS } from '../surface-list.js';
import type { PeopleDirectory, StartedSurface, SurfaceDeps } from '../surface-kit/started-surface.js';
import type { SurfaceModule } from '../surface-kit/surface-module.js';
import { anyIssueLinker } from './issue-linkers.js';

/** One started surface with the module it came from. */
interface Started {
  module: SurfaceModule;
  parts: StartedSurface;
}

/** Every registered surface's access policy in one: a trigger is asked of its own surface's policy. */
export class AccessBySurface implements AccessPolicy {
  private readonly policies: ReadonlyMap<string, AccessPolicy>;

  constructor(modules: readonly SurfaceModule[], config: AppConfig) {
    this.policies = new Map(
      modules.flatMap((module) => {
        const policy = module.access?.(config);
        return policy ? [[module.name, policy] as const] : [];
      }),
    );
  }

  deny(trigger: Pick<StoredTrigger, 'source' | 'payload'>): string | undefined {
    return this.policies.get(trigger.source)?.deny(trigger);
  }

  /** The policy of the surface named so; one that lets everyone through when it has none. */
  of(name: string): AccessPolicy {
    return this.policies.get(name) ?? allowEveryone;
  }
}

/** Starts every registered surface the config turns on, in the list's order; each `stop` is registered with `onStop`. */
export async function startSurfaces(
  modules: readonly SurfaceModule[],
  config: AppConfig,
  deps: Omit<SurfaceDeps, 'access' | 'isOn' | 'people'> & { accessOf: (name: string) => AccessPolicy },
  onStop: (name: string, stop: () => Promise<void>) => void,
): Promise<StartedSurfaces> {
  const on = new Set(modules.filter((module) => module.isOn(config)).map((module) => module.name));
  const started: Started[] = [];
  for (const module of modules) {
    const { accessOf, ...shared } = deps;
    const parts = await module.start(config, { ...shared, access: accessOf(module.name), isOn: (name) => on.has(name), people: PERSON_IDS });
    if (!parts) continue;
    started.push({ module, parts });
    // Before the database closes; an event stored while the workers stop is worked on the next start.
    if (parts.stop) onStop(module.name, parts.stop);
  }
  return new StartedSurfaces(modules, started);
}

/** What the started surfaces bring, by name. */
export class StartedSurfaces {
  constructor(
    private readonly modules: readonly SurfaceModule[],
    private readonly started: readonly Started[],
  ) {}

  /** Every route: each started surface's, else its module's answers saying how to turn it on. */
  endpoints(): Endpoint[] {
    return this.modules.flatMap((module) => this.partsOf(module.name)?.endpoints ?? module.offEndpoints());
  }

  notifiers(): Notifier[] {
    return this.started.flatMap(({ parts }) => parts.notifiers);
  }

  enrichers(): Record<string, PromptEnricher> {
    return this.byName((parts) => parts.enricher);
  }

  requesterChecks(): Record<string, RequesterCheck> {
    return this.byName((parts) => parts.requesterCheck);
  }

  /** Users' confirmed emails, by surface. */
  emailOf(): Record<string, (userId: string) => Promise<string | undefined>> {
    return this.byName((parts) => parts.emailOf);
  }

  /**
   * For each surface whose messages may name issues (`linksIssuesOf`), one linker over the started
   * trackers it names.
   */
  issueLinkers(): Record<string, IssueLinker> {
    const linkers: Record<string, IssueLinker> = {};
    for (const { module, parts } of this.started) {
      const linker = anyIssueLinker((parts.linksIssuesOf ?? []).flatMap((name) => this.partsOf(name)?.issueLinker ?? []));
      if (linker) linkers[module.name] = linker;
    }
    return linkers;
  }

  /** Places that show a run as an agent session, on any surface; undefined when none does. */
  sessionPlaces(): SessionPlaces | undefined {
    const each = this.started.flatMap(({ parts }) => (parts.sessionPlaces ? [parts.sessionPlaces] : []));
    if (each.length === 0) return undefined;
    return each.length === 1 ? each[0] : (destination) => each.some((shows) => shows(destination));
  }

  /** Every chat surface that is on whose users are the bridge's people, by name, in the list's order. */
  peopleDirectories(): Record<string, PeopleDirectory> {
    return this.byName((parts) => parts.people);
  }

  private partsOf(name: string): StartedSurface | undefined {
    return this.started.find(({ module }) => module.name === name)?.parts;
  }

  private byName<T>(pick: (parts: StartedSurface) => T | undefined): Record<string, T> {
    const picked: Record<string, T> = {};
    for (const { module, parts } of this.started) {
      const value = pick(parts);
      if (value !== undefined) picked[module.name] = value;
    }
    return picked;
  }
}
