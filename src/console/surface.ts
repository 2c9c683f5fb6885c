/**
 * The console as the core sees it (the `Surface` port): a place people start runs from (New run),
 * not one they talk in. Its requests are shown at a `log:` place (`log:console:<id>`), like a
 * schedule's without `notify`, so what the run owes people is written to the service log and the
 * console shows the run itself. Its origins carry the name of the route the person chose
 * (`route-choices.ts`); no name means the defaults alone. Registered in `compose/surfaces.ts`.
 */
import type { Route } from '../core/intake/routing.js';
import type { Surface } from '../core/ports/surface.js';
import type { RouteChoice } from './route-choices.js';

/** The console's name: the `source` of the runs it starts. */
export const CONSOLE_SOURCE = 'console';

/** The console surface; `choices` are the routes its form offers. */
export function consoleSurface(choices: readonly RouteChoice[]): Surface<Route> {
  const byName = new Map(choices.map((choice) => [choice.name, choice.route]));
  return {
    name: CONSOLE_SOURCE,
    title: 'the console',
    // Its places are log places: nothing there threads, reacts or speaks to one person; every state is a line.
    can: { editInPlace: true, react: false, speakPrivately: false, thread: false },
    isConversation: () => false,
    route: (origin) => (origin['route'] === undefined ? undefined : byName.get(origin['route'])),
  };
}
