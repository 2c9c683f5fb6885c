/** GitLab's places as GitLab writes its own references: `gitlab:<group/project>#<iid>` (an issue) and `gitlab:<group/project>!<iid>` (a merge request). */
import type { NoteableKind } from './gitlab-api.js';

const PLACE = /^gitlab:([A-Za-z0-9_.][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_.][A-Za-z0-9_.-]*)+)([#!])(\d{1,10})$/;

/** A GitLab place as its project, noteable kind and iid; undefined when it is not one. */
export function parseGitlabPlace(place: string): { project: string; kind: NoteableKind; iid: number } | undefined {
  const match = PLACE.exec(place);
  if (!match) return undefined;
  return { project: match[1]!.toLowerCase(), kind: match[2] === '#' ? 'issues' : 'merge_requests', iid: Number(match[3]) };
}
