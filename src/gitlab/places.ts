/** GitLab's places as GitLab writes its own references: `gitlab:<group/project>#<iid>` (an issue) and `gitlab:<group/project>!<iid>` (a merge request). */
import type { NoteableKind } from './gitlab-api.js';

const PLACE = /^gitlab:([A-Za-z0-9_.][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_.][A-Za-z0-9_.-]*)+)([#!])(\d{1,10})$/;

/** A GitLab place as its project, noteable kind and iid; undefined when it is not one. */
export function parseGitlabPlace(place: string): { project: string; kind: NoteableKind; iid: number } | undefined {
  const match = PLACE.exec(place);
  if (!match) return undefined;
  return { project: match[1]!.toLowerCase(), kind: match[2] === '#' ? 'issues' : 'merge_requests', iid: Number(match[3]) };
}

/** A merge request's place: `gitlab:<group/project>!<iid>` (lower-cased: GitLab's paths ignore case). */
export function gitlabMergeRequestPlace(project: string, iid: number): string {
  return `gitlab:${project.toLowerCase()}!${iid}`;
}

/** A project path segment as GitLab allows it: not `-` (the route separator), nor dots alone (`.`, `..`). */
const SEGMENT = /^(?!\.+$)[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;

/**
 * The merge request a URL names on the instance at `instanceUrl` (`GITLAB_URL`, perhaps under a path
 * prefix): `{instance}/<group>/<subgroup…>/<project>/-/merge_requests/<iid>`, host and path in any
 * case, with a trailing `/`, `?…` or `#…`; undefined for any other URL.
 */
export function placeOfMergeRequestUrl(url: string, instanceUrl: string): { project: string; iid: number; place: string } | undefined {
  const base = instanceUrl.replace(/\/+$/, '');
  if (!url.toLowerCase().startsWith(`${base.toLowerCase()}/`)) return undefined;
  const rest = url.slice(base.length + 1);
  const match = /^(.+?)\/-\/merge_requests\/(\d{1,10})\/?(?:[?#].*)?$/i.exec(rest);
  if (!match) return undefined;
  const segments = match[1]!.split('/');
  if (segments.length < 2 || !segments.every((segment) => SEGMENT.test(segment))) return undefined;
  const iid = Number(match[2]);
  if (iid < 1) return undefined;
  const project = segments.join('/').toLowerCase();
  return { project, iid, place: gitlabMergeRequestPlace(project, iid) };
}
