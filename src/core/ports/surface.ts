/**
 * The `Surface` port: what the core knows of a place people talk to the bridge from — a
 * chat, an issue tracker. A surface is a plug-in: its adapter brings its edge (HTTP route, signature,
 * normalising events into triggers), its notifier, its context reader (`PromptEnricher`) and its
 * person identity, and describes itself here; the composition root registers it (`compose/surfaces.ts`).
 * The core asks this port, never a surface by name (docs/architecture.md, "Adding a surface").
 */
import type { SurfaceOrigin } from './triggers.js';

/** What a surface's places can do; the core words its messages by these, never by the surface's name. */
export interface SurfaceCapabilities {
  /** A message can be edited where it stands (a status message updated in place); without, only announcements are owed there. */
  editInPlace: boolean;
  /** A message can be marked with a reaction (👀, ✉️); without, an accepted follow-up owes nothing there. */
  react: boolean;
  /** One person can be told something the others in the place do not see (`privateTo`). */
  speakPrivately: boolean;
  /**
   * A message can start a thread that later ones join (a schedule's channel: a new thread per run);
   * without threads, a schedule's place is one conversation that follows its latest run.
   */
  thread: boolean;
}

/**
 * A surface as the core sees it. `TRoute` is the core's `Route` (`intake/routing.ts`): a parameter so
 * that this port depends on no other part of the core.
 */
export interface Surface<TRoute = unknown> {
  /** Its name: the `source` of its triggers and the prefix of its places (`<name>:…`). */
  readonly name: string;
  /** Its name in words, for messages ("a follow-up from …"). */
  readonly title: string;
  readonly can: SurfaceCapabilities;
  /** Whether `destination` (one of its places) is where people talk about a run, not a view of it such as a home page. */
  isConversation(destination: string): boolean;
  /** The configured route for one of its origins, before the defaults apply; undefined: the defaults alone. */
  route(origin: SurfaceOrigin): TRoute | undefined;
  /**
   * Its users, where they are not people themselves (every surface but the chat whose users own the
   * personal keys): how their ids look, so an admin can link one to a person on the console. Absent:
   * its users are people, or cannot be linked.
   */
  readonly users?: SurfaceUsers;
  /**
   * How a person of this surface is named in another surface's place, where this surface's own mention
   * of them means nothing; undefined: by their name, as anywhere. `name` is how the surface spelt them
   * (the id may be stored lower-cased).
   */
  nameElsewhere?(personId: string, name?: string): string;
  /**
   * The place a schedule's `notify` names on this surface, read from its own key there; undefined when
   * it names none. Where the surface does not thread (`can.thread` false), replies there reach the
   * schedule's latest run.
   */
  scheduleNotify?(notify: ScheduleNotify): string | undefined;
  /**
   * The place a run's artifact links to (a pull request's URL), when it is one of this surface's served
   * places: the tracker makes it another place and anchor of the run. Undefined: not one of its places.
   */
  placeOfArtifact?(url: string): string | undefined;
}

/** How a surface's user ids look (what the console accepts when an admin links one to a person). */
export interface SurfaceUsers {
  /** A well-formed user id, after `normalise`. */
  readonly idPattern: RegExp;
  /** An example id for a form's placeholder and error text. */
  readonly example: string;
  /** The id as stored (e.g. lower-cased where the surface ignores case); identity when absent. */
  normalise?(id: string): string;
}

/** A schedule's `notify` settings as the config holds them: each surface reads its own key. */
export type ScheduleNotify = Readonly<Record<string, string | undefined>>;
