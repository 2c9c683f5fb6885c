/**
 * A person is the bridge's identity root: the one who owns a personal key, approves, administers the
 * console. Each is named by a person id, the user id of a chat surface written so that ids of
 * different surfaces never meet: `<surface>:<user id>` (`teams:6e1c…`), except for a surface whose ids
 * have always stood bare (Slack's `U0123ABCD`, in config files and stored rows that predate the rule).
 * Users of other surfaces reach a person through a link (`person_links`). Code outside the surfaces'
 * folders reads person ids only through this: it never knows the shape of one surface's ids.
 */
import { withArticle } from '../config-kit/describe-parts.js';

/** How a chat surface's users are named as people. */
export interface PersonIdShape {
  /** Whether `id` is one of its user ids as the platform writes it (Slack: `U0123ABCD`). */
  isUserId(id: string): boolean;
  /** Its user ids stand bare as person ids and in config lists; other surfaces' are written `<name>:<id>`. */
  readonly bare?: boolean;
  /** One of its user ids, as an example in forms and messages (`U0123ABCD`). */
  readonly example: string;
  /** What people call one of its user ids (`Slack user ID`). */
  readonly idName: string;
  /** How a person finds their id there ("profile → ⋮ → Copy member ID"). */
  readonly whereToFind: string;
  /** One of its user ids as people type it, written as the platform does (Slack: upper case); absent: kept as typed. */
  normalise?(typed: string): string;
}

/** A chat surface whose users are people, as this module needs it. */
export interface PeopleSurface {
  readonly name: string;
  readonly title: string;
  readonly personIds: PersonIdShape;
}

/** A person id taken apart: its surface and the user id on it. */
export interface ParsedPersonId {
  /** The canonical person id (bare where the surface's ids stand bare). */
  readonly personId: string;
  readonly surface: string;
  readonly userId: string;
}

/** The person ids of the registered chat surfaces. */
export class PersonIds {
  private readonly surfaces: readonly PeopleSurface[];

  constructor(surfaces: readonly PeopleSurface[]) {
    this.surfaces = surfaces;
  }

  /** Whether any chat surface names people. */
  get any(): boolean {
    return this.surfaces.length > 0;
  }

  /**
   * The person id of a user of `surface`; undefined when that surface has no people or the id is not one
   * of its users'. A qualified id is written as its surface writes it (`normalise`: a GUID in lower
   * case), so that one person has one id however it was typed; bare ids stand exactly as given.
   */
  of(surface: string, userId: string): string | undefined {
    const found = this.surfaces.find((candidate) => candidate.name === surface);
    if (!found || !found.personIds.isUserId(userId)) return undefined;
    return found.personIds.bare ? userId : `${found.name}:${found.personIds.normalise?.(userId) ?? userId}`;
  }

  /**
   * A person id as written in the config or typed in a form: `<surface>:<user id>` for any chat surface
   * (`slack:U0123ABCD` too, read as `U0123ABCD`), or bare for the surface whose ids stand bare.
   */
  parse(text: string): ParsedPersonId | undefined {
    const colon = text.indexOf(':');
    if (colon > 0) {
      const surface = this.surfaces.find((candidate) => candidate.name === text.slice(0, colon).toLowerCase());
      const personId = surface && this.of(surface.name, text.slice(colon + 1));
      return surface && personId
        ? { personId, surface: surface.name, userId: personId.slice(surface.personIds.bare ? 0 : surface.name.length + 1) }
        : undefined;
    }
    const bare = this.surfaces.find((candidate) => candidate.personIds.bare && candidate.personIds.isUserId(text));
    return bare ? { personId: text, surface: bare.name, userId: text } : undefined;
  }

  /**
   * A person id as someone typed it in a search box: also inside the bridge's mention token
   * (`<@U0123ABCD>`, `@U0123ABCD`, with a `|label` after it) and in another case than its surface
   * writes it (`u0123abcd`), which `parse` refuses. Undefined when it names no person.
   */
  read(typed: string): ParsedPersonId | undefined {
    const bare = /^<?@?([^<>@|\s]+)(?:\|[^>]*)?>?$/.exec(typed.trim())?.[1];
    if (bare === undefined) return undefined;
    const exact = this.parse(bare);
    if (exact) return exact;
    const colon = bare.indexOf(':');
    const named = colon > 0 && this.surfaces.find((candidate) => candidate.name === bare.slice(0, colon).toLowerCase());
    if (named) return this.parse(`${named.name}:${named.personIds.normalise?.(bare.slice(colon + 1)) ?? bare.slice(colon + 1)}`);
    for (const surface of this.surfaces) {
      const id = surface.personIds.bare && surface.personIds.normalise?.(bare);
      if (id && surface.personIds.isUserId(id)) return { personId: id, surface: surface.name, userId: id };
    }
    return undefined;
  }

  /** Words for a person where its surface's markup means nothing ("Slack user U0123ABCD"); the id itself when it is no known person's. */
  describe(personId: string): string {
    const parsed = this.parse(personId);
    const surface = parsed && this.surfaces.find((candidate) => candidate.name === parsed.surface);
    return parsed && surface ? `${surface.title} user ${parsed.userId}` : personId;
  }

  /** One person id, as a form's placeholder shows it: the first chat surface's example (`U0123ABCD`); empty when none is registered. */
  example(): string {
    const [first] = this.surfaces;
    if (!first) return '';
    return first.personIds.bare ? first.personIds.example : `${first.name}:${first.personIds.example}`;
  }

  /** What a person id looks like, for an error message or a form's hint ("a Slack user ID such as U0123ABCD (…)"). */
  expected(): string {
    if (this.surfaces.length === 0) return 'no chat surface whose users are people is registered';
    return this.surfaces
      .map(({ name, personIds: ids }) =>
        ids.bare
          ? `${withArticle(ids.idName)} such as ${ids.example} (${ids.whereToFind})`
          : `${withArticle(ids.idName)} written ${name}:<id>, such as ${name}:${ids.example} (${ids.whereToFind})`,
      )
      .join(', or ');
  }
}
