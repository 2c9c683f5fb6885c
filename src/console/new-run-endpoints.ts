/**
 * New run (`/console/runs/new`): a signed-in person starts a run from the console. The request is
 * stored through the intake like any edge's — a `start` trigger of source `console`, asked by the
 * person signed in (or the console admin), shown at its own log place — and the intake worker creates,
 * and the tracker follows, the run as for a mention. The form then leads to the request's page until
 * the run exists.
 */
import type { Endpoint } from '../http/server.js';
import type { ConsoleGate } from './gate.js';
import { queryOf, redirect, sendHtml } from './http-io.js';
import { isRequestId, NEW_RUN_LIMIT_BYTES, readNewRun, requestIdFor } from './new-run-form.js';
import { newRunPage } from './pages/new-run-page.js';
import { startingPage } from './pages/starting-page.js';
import { consoleRequester } from './requester.js';
import { CONSOLE_SOURCE } from './surface.js';

export const NEW_RUN_PATH = '/console/runs/new';
const STARTING_PATH = '/console/runs/starting';

/** The form, its submission, and the page a submitted request is followed on. */
export function newRunEndpoints(gate: ConsoleGate): Endpoint[] {
  const { deps } = gate;
  return [
    gate.page(NEW_RUN_PATH, 'everyone', (viewer) => Promise.resolve(newRunPage(deps, viewer))),
    gate.action(
      NEW_RUN_PATH,
      'everyone',
      async (form, viewer, res) => {
        const read = readNewRun(form, deps.routes);
        if (read.kind === 'problem') return sendHtml(res, 400, newRunPage(deps, viewer, read));
        const id = requestIdFor(viewer.sid, read.request);
        const anchor = `log:${CONSOLE_SOURCE}:${id}`;
        // A second submission of the same form finds the key stored and adds nothing: both lead to the same request.
        await deps.intake.submit({
          kind: 'start',
          key: `${CONSOLE_SOURCE}:${id}`,
          source: CONSOLE_SOURCE,
          anchor,
          payload: {
            prompt: read.prompt,
            title: read.title,
            origin: { source: CONSOLE_SOURCE, ...(read.route !== undefined && { route: read.route }) },
            destinations: [anchor],
            requester: consoleRequester(viewer),
          },
        });
        redirect(res, `${STARTING_PATH}?request=${id}`);
      },
      NEW_RUN_LIMIT_BYTES,
    ),
    gate.page(STARTING_PATH, 'everyone', async (viewer, req) => {
      const id = queryOf(req).get('request') ?? '';
      const trigger = isRequestId(id) ? await deps.store.triggers.getByKey(`${CONSOLE_SOURCE}:${id}`) : undefined;
      // Someone else's request is "not found" to a person who is not an admin, as their runs are.
      const theirs = viewer.person !== undefined && trigger?.payload.requester?.id === viewer.person.id;
      if (!trigger || !(viewer.admin || theirs)) return undefined;
      return startingPage(deps, viewer, trigger);
    }),
  ];
}
