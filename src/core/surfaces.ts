/**
 * The surfaces the composition root registered, asked by destination or by trigger source. A place of
 * no registered surface (`log:`, a schedule's anchor) can do nothing: no private word, no route of its own.
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

  /** Whether one person can be told something privately at `destination`. */
  speaksPrivately(destination: string): boolean {
    return this.of(destination)?.can.speakPrivately ?? false;
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

  /** The places a schedule's `notify` names, each surface reading its own key, in registration order. */
  scheduleNotify(notify: ScheduleNotify): { destination: string; followsLatestRun: boolean }[] {
    return [...this.byName.values()].flatMap((surface) => {
      const place = surface.scheduleNotify?.(notify);
      return place === undefined ? [] : [place];
    });
  }
}
