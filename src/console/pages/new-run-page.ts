/**
 * `/console/runs/new`: the form that starts a run from the console — a prompt, a route among the
 * configured ones (`route-choices.ts`) and an optional title. Shown again with what was typed and the
 * problem when a submission is refused.
 */
import type { Route } from '../../core/intake/routing.js';
import type { ConsoleDeps, Viewer } from '../deps.js';
import { html, type SafeHtml } from '../html.js';
import { page } from '../layout.js';
import { newRequestId, PROMPT_LIMIT, type NewRunValues } from '../new-run-form.js';
import type { RouteChoice } from '../route-choices.js';

/** What a route does, in a few words: only fields that are no secret (an MCP server's headers may hold one). */
export function routeSummary(route: Route): string {
  const config = route.config ?? {};
  const facts = [
    route.factory_uid !== undefined ? `factory ${route.factory_uid}` : undefined,
    typeof config.environment_id === 'string' ? `environment ${config.environment_id}` : undefined,
    typeof config.model_id === 'string' ? `model ${config.model_id}` : undefined,
    route.agent_identity_uid !== undefined ? `as agent ${route.agent_identity_uid}` : undefined,
    route.approval !== undefined ? 'waits for approval' : undefined,
    route.limits !== undefined ? 'has limits' : undefined,
  ].filter((fact): fact is string => fact !== undefined);
  return facts.join(', ');
}

function routeOption(choice: RouteChoice, selected: string): SafeHtml {
  const summary = routeSummary(choice.route);
  return html`<option value="${choice.name}" ${choice.name === selected ? html` selected` : ''}>
    ${choice.name} — ${choice.where}${summary ? ` (${summary})` : ''}
  </option>`;
}

/** Who the run is started as, in words. */
function startedAs(viewer: Viewer): SafeHtml {
  return viewer.person
    ? html`as you (<bdi>${viewer.person.name}</bdi>): under your own API key when you have connected one, with your limits`
    : html`as the console admin, under the service's API key`;
}

/** The form, empty with a fresh request id, or as submitted with `problem` above it. */
export function newRunPage(deps: ConsoleDeps, viewer: Viewer, submitted?: { values: NewRunValues; problem: string }): SafeHtml {
  const values = submitted?.values ?? { prompt: '', route: '', title: '', request: newRequestId() };
  const defaults = routeSummary(deps.defaults);
  const body = html`<h1>New run</h1>
    <p>
      Starts a run of the agent ${startedAs(viewer)}. It is tracked like every other run: it appears under
      <a href="/console/runs?source=console">Runs</a> with source <code>console</code>, and what it owes people is written to the service log.
    </p>
    ${submitted ? html`<p class="flash bad" role="alert" data-testid="new-run-problem">${submitted.problem}</p>` : ''}
    <form class="new-run" method="post" action="/console/runs/new">
      <input type="hidden" name="csrf" value="${viewer.csrf}" />
      <input type="hidden" name="request" value="${values.request}" />
      <label
        >Prompt
        <textarea name="prompt" rows="8" maxlength="${PROMPT_LIMIT}" required placeholder="What should the agent do?">${values.prompt}</textarea></label
      >
      <label
        >Route
        <select name="route">
          <option value="" ${values.route === '' ? html` selected` : ''}>defaults${defaults ? ` (${defaults})` : ''}</option>
          ${deps.routes.map((choice) => routeOption(choice, values.route))}
        </select></label
      >
      <label>Title (optional; default: the prompt's first line) <input name="title" value="${values.title}" maxlength="200" /></label>
      <button type="submit">Start run</button>
    </form>`;
  // No refresh: it would empty a form being filled in.
  return page({ title: 'New run', section: 'runs', csrf: viewer.csrf, viewer, body, refreshSeconds: 0 });
}
