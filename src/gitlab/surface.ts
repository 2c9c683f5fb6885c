/**
 * GitLab as the core sees it (the `Surface` port): its places are issues (`gitlab:<group/project>#<iid>`)
 * and a run's merge requests (`gitlab:<group/project>!<iid>`), where the bridge writes notes, edits its
 * own and awards emoji; nothing there is private to one person, and an issue or merge request is one
 * conversation (no thread per run). The route of a request is its label's, else its project's, else `*`'s.
 */
import type { Route } from '../core/intake/routing.js';
import type { Surface } from '../core/ports/surface.js';
import { isServedProject, PIPELINES_REQUESTER } from './acts.js';
import { parseGitlabPlace, placeOfMergeRequestUrl } from './places.js';

const own = (routes: Readonly<Record<string, Route>>, key: string | undefined) => (key !== undefined && Object.hasOwn(routes, key) ? routes[key] : undefined);

/**
 * The GitLab surface; `projects` and `labels` are `gitlab.projects` and `gitlab.labels` (lower-cased
 * keys), `url` is `GITLAB_URL`. Only while GitLab is on (`enabled`) does a run's merge request on a
 * served project become a place: nothing could be delivered there otherwise.
 */
export function gitlabSurface(config: {
  enabled: boolean;
  url: string;
  projects: Readonly<Record<string, Route>>;
  labels: Readonly<Record<string, Route>>;
}): Surface<Route> {
  return {
    name: 'gitlab',
    title: 'GitLab',
    can: { editInPlace: true, react: true, speakPrivately: false, thread: false },
    isConversation: (destination) => parseGitlabPlace(destination) !== undefined,
    route: (origin) =>
      own(config.labels, origin['label']?.toLowerCase()) ?? own(config.projects, origin['project']?.toLowerCase()) ?? own(config.projects, '*'),
    // Usernames: letters, digits, `_`, `-` and `.`; GitLab ignores their case (and people write an @).
    users: { idPattern: /^[a-z0-9_.][a-z0-9_.-]{0,254}$/, example: 'alice', normalise: (name) => name.replace(/^@/, '').toLowerCase() },
    nameElsewhere: (username, name) => (username === PIPELINES_REQUESTER ? 'GitLab' : `GitLab user ${name ?? username}`),
    placeOfArtifact: (url) => {
      if (!config.enabled) return undefined;
      const found = placeOfMergeRequestUrl(url, config.url);
      return found && isServedProject(found.project, config) ? found.place : undefined;
    },
  };
}
