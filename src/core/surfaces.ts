/**
 * The surfaces the composition root registered, asked by destination or by trigger source. A place of
 * no registered surface (`log:`, a schedule's anchor) has no private word and no route of its own; what
 * it shows of a run (every state, reactions) its notifier decides, so it is owed everything, as before.
 */
import { platformOf } from './ports/notifier.js';
import type { ScheduleNotify, Surface } from './ports/surface.js';
import type { SurfaceOrigin } from './ports/triggers.js';
import type { Route } from './intake/routing.js';

export class Surfaces {
  /** No surface at all: what a core part uses when it was given none. */
  static readonly none = new Surfaces([]);

  private readonly byName: ReadonlyMap<string, Surface<Route>>;

  constructor(surfaces: readonly Surface<Route>[]) {
    this.byName = new Map(surfaces.map((surface) => [surface.name, surface]));
  }

  /** The surface a destination or trigger source belongs to (`<name>:C1:1.2` → the surface named `<name>`). */
  of(destinationOrSource: string): Surface<Route> | undefined {
    return this.byName.get(platformOf(destinationOrSource));
  }

  /** Every registered surface, in registration order. */
  all(): readonly Surface<Route>[] {
    return [...this.byName.values()];
  }

  /** Whether one person can be told something privately at `destination`. */
  speaksPrivately(destination: string): boolean {
    return this.of(destination)?.can.speakPrivately ?? false;
  }

  /** Whether a message at `destination` can be edited where it stands: if not, its surface is owed no status edits, only announcements. */
  editsInPlace(destination: string): boolean {
    return this.of(destination)?.can.editInPlace ?? true;
  }

  /** Whether a message at `destination` can be marked with a reaction: if not, an accepted follow-up owes it nothing. */
  reacts(destination: string): boolean {
    return this.of(destination)?.can.react ?? true;
  }

  /** Whether `destination` is a place where people talk about the run (see `Surface.isConversation`). */
  isConversation(destination: string): boolean {
    return this.of(destination)?.isConversation(destination) ?? false;
  }

  /** The surface's name in words, else the bare prefix. */
  title(destinationOrSource: string): string {
    return this.of(destinationOrSource)?.title ?? platformOf(destinationOrSource);
  }

  /** The configured route of a surface's origin; undefined when its surface is unknown or names none. */
  route(origin: SurfaceOrigin): Route | undefined {
    return this.of(origin.source)?.route(origin);
  }

  /** The place an artifact's URL is on some surface (the first that claims it), if any. */
  placeOfArtifact(url: string): string | undefined {
    for (const surface of this.byName.values()) {
      const place = surface.placeOfArtifact?.(url);
      if (place !== undefined) return place;
    }
    return undefined;
  }

  /**
   * The places a schedule's `notify` names, each surface reading its own key, in registration order.
   * `followsLatestRun`: the place does not thread (`can.thread` is false), so each fire's run shows in
   * the same conversation and replies there reach the schedule's latest run.
   */
  scheduleNotify(notify: ScheduleNotify): { destination: string; followsLatestRun: boolean }[] {
    return [...this.byName.values()].flatMap((surface) => {
      const destination = surface.scheduleNotify?.(notify);
      return destination === undefined ? [] : [{ destination, followsLatestRun: !surface.can.thread }];
    });
  }
}
