import { describe, expect, it } from 'vitest';
import type { Route } from '../core/intake/routing.js';
import { gitlabSurface } from './surface.js';

const served = { 'acme/web': {} as Route, 'acme/platform/api': {} as Route };
const surface = (url: string, projects: Record<string, Route> = served, enabled = true) => gitlabSurface({ enabled, url, projects, labels: {} });

describe('the place of a run’s artifact on GitLab', () => {
  it.each<[string, string, string | undefined]>([
    ['a merge request of a served project', 'https://gitlab.com/acme/web/-/merge_requests/7', 'gitlab:acme/web!7'],
    ['in another case, host and path', 'HTTPS://GitLab.com/Acme/Web/-/merge_requests/7', 'gitlab:acme/web!7'],
    ['with a trailing slash', 'https://gitlab.com/acme/web/-/merge_requests/7/', 'gitlab:acme/web!7'],
    ['with a fragment', 'https://gitlab.com/acme/web/-/merge_requests/7#note_12', 'gitlab:acme/web!7'],
    ['with a query', 'https://gitlab.com/acme/web/-/merge_requests/7?tab=diffs', 'gitlab:acme/web!7'],
    ['in a subgroup', 'https://gitlab.com/acme/platform/api/-/merge_requests/12', 'gitlab:acme/platform/api!12'],
    ['one of its tabs', 'https://gitlab.com/acme/web/-/merge_requests/7/diffs', undefined],
    ['an issue', 'https://gitlab.com/acme/web/-/issues/7', undefined],
    ['the list of merge requests', 'https://gitlab.com/acme/web/-/merge_requests', undefined],
    ['a project no route serves', 'https://gitlab.com/strangers/elsewhere/-/merge_requests/7', undefined],
    ['another instance', 'https://gitlab.example.com/acme/web/-/merge_requests/7', undefined],
    ['a host that only starts like it', 'https://gitlab.com.evil.test/acme/web/-/merge_requests/7', undefined],
    ['a GitHub pull request', 'https://github.com/acme/web/pull/7', undefined],
    ['no project before the route', 'https://gitlab.com/acme/-/merge_requests/7', undefined],
    ['merge request 0', 'https://gitlab.com/acme/web/-/merge_requests/0', undefined],
    ['not a URL', 'acme/web!7', undefined],
  ])('%s: %s → %s', (_what, url, place) => {
    expect(surface('https://gitlab.com').placeOfArtifact?.(url)).toBe(place);
  });

  it.each<[string, string | undefined]>([
    ['https://code.example.org/gitlab/acme/web/-/merge_requests/3', 'gitlab:acme/web!3'],
    ['https://code.example.org/GitLab/acme/web/-/merge_requests/3/', 'gitlab:acme/web!3'],
    ['https://code.example.org/acme/web/-/merge_requests/3', undefined],
    ['https://code.example.org/gitlabx/acme/web/-/merge_requests/3', undefined],
  ])('a self-managed instance under a path prefix: %s → %s', (url, place) => {
    expect(surface('https://code.example.org/gitlab').placeOfArtifact?.(url)).toBe(place);
  });

  it('"*" serves every project; with GitLab off, nothing is a place', () => {
    expect(surface('https://gitlab.com', { '*': {} }).placeOfArtifact?.('https://gitlab.com/any/thing/-/merge_requests/2')).toBe('gitlab:any/thing!2');
    expect(surface('https://gitlab.com', { '*': {} }).placeOfArtifact?.('https://gitlab.com/acme/../web/-/merge_requests/2')).toBeUndefined();
    expect(surface('https://gitlab.com', served, false).placeOfArtifact?.('https://gitlab.com/acme/web/-/merge_requests/7')).toBeUndefined();
  });

  it('names a failed pipeline’s requester GitLab, and people by their username', () => {
    const s = surface('https://gitlab.com');
    expect(s.nameElsewhere?.('gitlab:pipelines')).toBe('GitLab');
    expect(s.nameElsewhere?.('alice', 'alice')).toBe('GitLab user alice');
  });
});
