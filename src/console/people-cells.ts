/**
 * Who each run belongs to, as the console shows it: the person who asked by name where it is known (a
 * chat requester's name is stored as the bridge's mention token `<@personId>`, which means nothing in
 * a browser), and whose key created the run — the person's own (its last 4 characters) or the service's.
 */
import type { DisplayNames } from '../people/display-names.js';
import type { ConsoleDeps } from './deps.js';
import { html, type SafeHtml } from './html.js';

/** What a page knows about people: names by person id, and the last 4 characters of connected keys by person. */
export interface PeopleFacts {
  names: ReadonlyMap<string, string>;
  keys: ReadonlyMap<string, string>;
}

/** The bridge's mention token, `<@personId>`, of any chat surface: the person it names. */
const MENTION = /^<@([^<>@\s]+)>$/;

/** Names of the people `ids` name (person ids; others are skipped) and every connected key's last 4, in one go. */
export async function peopleFacts(
  deps: { names?: Pick<DisplayNames, 'of'> | undefined; keys?: ConsoleDeps['keys'] },
  ids: ReadonlyArray<string | null | undefined>,
): Promise<PeopleFacts> {
  const wanted = ids.filter((id): id is string => typeof id === 'string' && id !== '');
  const [names, keys] = await Promise.all([
    deps.names && wanted.length > 0 ? deps.names.of(wanted) : Promise.resolve(new Map<string, string>()),
    deps.keys ? deps.keys.people.list() : Promise.resolve([]),
  ]);
  return { names, keys: new Map(keys.map((key) => [key.personId, key.lastFour])) };
}

/** A requester: the name we know (their chat's, else the one the platform gave), with the id beside it. */
export function asker(requester: { id?: string | null; name?: string | null } | undefined | null, facts: PeopleFacts): SafeHtml {
  const id = requester?.id ?? undefined;
  const mentioned = requester?.name ? MENTION.exec(requester.name)?.[1] : undefined;
  const given = requester?.name && mentioned === undefined ? requester.name : undefined;
  const known = (key: string | undefined) => (key !== undefined ? facts.names.get(key) : undefined);
  const name = known(id) ?? known(mentioned) ?? given;
  if (!id && !name) return html`<span class="muted">—</span>`;
  if (name && id) return html`<bdi>${name}</bdi> <span class="muted">(${id})</span>`;
  return html`<bdi>${name ?? id}</bdi>`;
}

/** Whose key created the run: `own key ····1234` (whose, when it is not the asker's) or `service key`. */
export function keyCell(run: { personalKeyOwner?: string | null; requester?: { id?: string | null } | null }, facts: PeopleFacts): SafeHtml {
  const owner = run.personalKeyOwner ?? undefined;
  if (owner === undefined) return html`<span class="muted">service key</span>`;
  const lastFour = facts.keys.get(owner);
  const key = lastFour !== undefined ? html`own key ····${lastFour}` : html`own key <span class="muted">(since disconnected)</span>`;
  if (run.requester?.id === owner) return html`<span title="${owner}">${key}</span>`;
  // A tracker's request runs under the key of the person it is linked to: say whose.
  return html`${key} <span class="muted">of <bdi>${facts.names.get(owner) ?? owner}</bdi></span>`;
}
