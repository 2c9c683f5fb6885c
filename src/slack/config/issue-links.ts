/**
 * A mention naming a tracker's issue binds the run to that issue too (`slack.link_linear_issues`,
 * `slack.link_jira_issues`): one key per tracker that offers an issue linker (`RouteParts.issueLinks`),
 * what they resolve to, and the warning when the tracker is off. A new tracker with a linker gets its
 * key here with no edit.
 */
import { z } from 'zod';
import { withDefault } from '../../config-kit/file-schema-parts.js';
import type { ConfigProblem } from '../../config-kit/problem.js';
import type { RouteParts } from '../../config-kit/route-schema.js';
import { issueLinkKey, type IssueLinkOffer } from '../../config-kit/tracker-keys.js';
import type { SurfaceIsOn } from '../../surface-kit/config-slice.js';

type LinkKey = ReturnType<typeof issueLinkKey>;

/** The keys of `slack:` that link a mention to a tracker's issue, each false unless set. */
export function issueLinkKeys(parts: Pick<RouteParts, 'issueLinks'>): { [key: LinkKey]: ReturnType<typeof linkFlag> } {
  return Object.fromEntries(parts.issueLinks.map(({ surface }) => [issueLinkKey(surface), linkFlag()]));
}

function linkFlag() {
  return withDefault(z.boolean(), false);
}

/** The trackers whose issues a mention binds its run to: those whose key is true. */
export function resolveIssueLinks(file: { readonly [key: LinkKey]: boolean }, parts: Pick<RouteParts, 'issueLinks'>): IssueLinkOffer[] {
  return parts.issueLinks.filter(({ surface }) => file[issueLinkKey(surface)] === true);
}

/** A link to a tracker that is off: the mention starts its run without the issue. */
export function issueLinkWarnings(links: readonly IssueLinkOffer[], label: string, isOn: SurfaceIsOn): ConfigProblem[] {
  return links.filter(({ surface }) => !isOn(surface)).map(({ surface, whenOff }) => ({ where: `${label}: slack.${issueLinkKey(surface)}`, ...whenOff }));
}
