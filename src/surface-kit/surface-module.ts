/**
 * A surface as the service registers it: one object per surface folder (`src/<surface>/module.ts`),
 * listed once in `src/surface-list.ts`. Everything outside a surface's folder that needs a surface —
 * the config loader, the composition root, the console, the CLI, the log scrubber — iterates that list
 * and asks these fields, never a surface by name. The core sees only the `Surface` port
 * (`core/ports/surface.ts`) that a module describes itself with.
 *
 * A module stays light: it imports its platform's library (Bolt, Octokit, the Linear SDK) only inside
 * `start`, so a surface that is off costs nothing at start.
 */
import type { ServiceConfig } from '../config-kit/service-config.js';
import type { Route } from '../core/intake/routing.js';
import type { AccessPolicy } from '../core/ports/intake.js';
import type { Surface } from '../core/ports/surface.js';
import type { Endpoint } from '../http/server.js';
import type { ConfigSlice } from './config-slice.js';
import type { PersonIdShape } from './person-ids.js';
import type { SignInOffer } from './sign-in-provider.js';
import type { StartedSurface, SurfaceDeps } from './started-surface.js';

/** A surface's section of the validated config (`config.<name>`), as far as code outside its folder reads it. */
export interface SurfaceSection {
  /** Whether the surface is on: its variables are set. */
  readonly enabled: boolean;
}

/**
 * What a module's methods read of the validated config: the service's own settings and its own section
 * (`config.<name>`) — never another surface's. The whole `AppConfig` is one (`config/types.ts`).
 */
export type ModuleConfig<Name extends string, Section> = ServiceConfig & { readonly [K in Name]: Section };

/** What `config check` learnt by asking a surface's platform (`SurfaceModule.liveChecks`). */
export interface LiveCheck {
  /** Lines for the summary: what was checked, or why it could not be (an unreachable platform is said, not failed). */
  lines: string[];
  /** What is surely wrong in the config (`config check` exits 2 listing them). */
  problems?: string[];
  /** What may be wrong: said, not failed. */
  warnings?: string[];
}

/** One registered surface; `Config` is what its methods read of the validated config (`ModuleConfig`). */
export interface SurfaceModule<Config extends ServiceConfig = ServiceConfig> {
  /** Its name: the `source` of its triggers, the prefix of its places (`<name>:…`), its config section. */
  readonly name: string;
  /** Its name in words, as people read it ("Slack", "GitHub"). */
  readonly title: string;
  /**
   * `chat`: people talk to the bridge in threads of messages, and a run started elsewhere can have a
   * companion place there; `tracker`: an issue or a pull request is the place.
   */
  readonly kind: 'chat' | 'tracker';
  /** A chat surface whose users are people: how their user ids are written as person ids (`person-ids.ts`). */
  readonly personIds?: PersonIdShape;
  /** The command its people connect a personal key with in the chat itself (Slack's `/agent connect`); absent: on the console only. */
  readonly connectCommand?: string;
  /** Its slice of the configuration: variables, its section of `agent-bridge.yml`, what `config check` says of it. */
  readonly config: ConfigSlice;
  /** A console sign-in it offers (Sign in with Slack), on when its config slice's `signIn` settings are set. */
  readonly signIn?: SignInOffer;
  /** Whether the config turns it on (its edge serves; a route's companion place there is kept). */
  isOn(config: Config): boolean;
  /** How the core sees its places; registered whether or not its edge is on (stored runs outlive a switch). */
  surface(config: Config): Surface<Route>;
  /** Who may act in its triggers, asked by the intake before anything is stored; absent: whoever its edge lets in. */
  access?(config: Config): AccessPolicy;
  /** How long replies are gathered into one follow-up (`followups: all`); 0 or absent: each goes at once. */
  followupWindowMs?(config: Config): number;
  /** Starts its edge and adapters when the config turns it on; undefined when it is off. */
  start(config: Config, deps: SurfaceDeps): Promise<StartedSurface | undefined>;
  /** The routes it answers while off: each says how to turn it on (never a bare 404). */
  offEndpoints(): Endpoint[];
  /**
   * Why it is on or off, as its row on the console's health page says: how it listens when on, what
   * turns it on when off. Written as a method so that each module may declare the fields of its own
   * section it reads; it is only ever called with `config.<name>`.
   */
  healthNote(section: SurfaceSection): string;
  /** One of its places in words, for the CLI (`slack:C1:1700.1` → "Slack thread 1700.1 in C1"); undefined: not one of its places. */
  placeLabel(place: string): string | undefined;
  /**
   * One of its places as the console shows it: words, and where it can be opened (`knownUrl`: the URL
   * its trigger carried, where the place alone does not say one); undefined: not one of its places.
   */
  placeLink(place: string, knownUrl?: string): { text: string; url?: string | undefined } | undefined;
  /**
   * Its routes that the config names by key (`slack.channels`, `github.labels`…), where the config
   * sets them, for the console's New run form.
   */
  routeTables(config: Config): ReadonlyArray<{ where: string; routes: Readonly<Record<string, Route>> }>;
  /** What `config check` asks its platform of the config (unless `--offline`), such as whether the workflow states the config names exist. */
  liveChecks?(config: Config): Promise<LiveCheck>;
  /** The shapes of credentials it mints or is given that no configured value holds (its tokens), which the logger scrubs from every line. */
  readonly credentialShapes?: readonly RegExp[];
}

/**
 * A registered surface with its own name and config slice as types. A module is declared as one (not
 * inferred) because the config's types are derived from the list (`config/types.ts`) while the module's
 * methods read that config: inferred, each would wait on the other.
 */
export type SurfaceModuleOf<Name extends string, Slice extends ConfigSlice> = Omit<
  SurfaceModule<ModuleConfig<Name, ReturnType<Slice['resolve']>>>,
  'name' | 'config' | 'signIn'
> & {
  readonly name: Name;
  readonly config: Slice;
  readonly signIn?: SignInOffer<SignInSettingsOf<Slice>>;
};

/** The settings a config slice's `signIn` reads from the surface's variables, once set. */
type SignInSettingsOf<Slice extends ConfigSlice> = Slice extends { signIn: { resolve(env: never): infer V } } ? NonNullable<V> : never;
