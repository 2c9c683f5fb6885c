/**
 * GitHub as the core sees it (the `Surface` port): its places are issues and pull requests
 * (`github:<owner>/<repo>#<n>`), where the bridge comments, edits its comments and reacts; nothing
 * there is private to one person, and an issue is one conversation (no thread per run). The route of
 * a request is its label's, else its repository's, else `*`'s. Registered in `compose/surfaces.ts`.
 */
import type { Route } from '../core/intake/routing.js';
import type { Surface } from '../core/ports/surface.js';
import { CHECKS_REQUESTER, isServedRepo, placeOfPullRequestUrl } from './acts.js';

const PLACE = /^github:[^/\s]+\/[^#\s]+#\d+$/;

const own = (routes: Readonly<Record<string, Route>>, key: string | undefined) => (key !== undefined && Object.hasOwn(routes, key) ? routes[key] : undefined);

/**
 * The GitHub surface; `repos` and `labels` are `github.repos` and `github.labels` (lower-cased keys).
 * Only while GitHub is on (`enabled`) does a run's pull request on a served repository become a place:
 * nothing could be delivered there otherwise.
 */
export function githubSurface(config: {
  enabled: boolean;
  webUrl: string;
  repos: Readonly<Record<string, Route>>;
  labels: Readonly<Record<string, Route>>;
}): Surface<Route> {
  return {
    name: 'github',
    title: 'GitHub',
    can: { editInPlace: true, react: true, speakPrivately: false, thread: false },
    isConversation: (destination) => PLACE.test(destination),
    route: (origin) => own(config.labels, origin['label']?.toLowerCase()) ?? own(config.repos, origin['repo']?.toLowerCase()) ?? own(config.repos, '*'),
    // Logins: letters, digits and single hyphens, at most 39 characters; GitHub ignores their case (and people write an @).
    users: { idPattern: /^[a-z\d](?:[a-z\d]|-(?=[a-z\d])){0,38}$/, example: 'octocat', normalise: (login) => login.replace(/^@/, '').toLowerCase() },
    // By the login as GitHub spells it (`Codertocat`); the id is lower-cased for matching.
    nameElsewhere: (login, name) => (login === CHECKS_REQUESTER ? 'GitHub' : `GitHub user ${name ?? login}`),
    placeOfArtifact: (url) => {
      if (!config.enabled) return undefined;
      const found = placeOfPullRequestUrl(url, config.webUrl);
      return found && isServedRepo(found.repo, config) ? found.place : undefined;
    },
  };
}
