/**
 * People in `agent-bridge.yml`: `approval.approvers` and `console.admins` name persons of any chat
 * surface (`U0123ABCD` bare for Slack, `<surface>:<id>` for any), and a chat surface's own
 * `allowed_users` names its users, bare or qualified. Both are read into the one form code compares:
 * the canonical person id, or the user id the platform sends.
 */
import { z } from 'zod';
import { withArticle } from './describe-parts.js';

/** What the config needs to read person ids: the registered chat surfaces' (`surface-kit/person-ids.ts`), or a test's. */
export interface PersonIdReader {
  /** The canonical person id `text` names, with its surface and user id there; undefined when it names no person. */
  parse(text: string): { personId: string; surface: string; userId: string } | undefined;
  /** What a person id looks like, for an error message. */
  expected(): string;
}

/** A chat surface whose users the config names in its own lists (a `PeopleSurface`). */
export interface UsersOf {
  readonly name: string;
  readonly personIds: { isUserId(id: string): boolean; readonly example: string; readonly idName: string; readonly whereToFind: string };
}

/** A person (`approval.approvers`, `console.admins`): any chat surface's user id as a person id, read as the canonical one. */
export function personIdSchema(people: PersonIdReader) {
  return z.string().transform((text, ctx) => {
    const parsed = people.parse(text.trim());
    if (parsed) return parsed.personId;
    ctx.addIssue({ code: 'custom', message: `is not a person id — use ${people.expected()}, not a name` });
    return z.NEVER;
  });
}

/**
 * A user of one chat surface in its own list (`slack.allowed_users`): its user id bare, or qualified
 * with the surface's name (`slack:U0123ABCD`), read as the bare user id its events carry.
 */
export function ownUserIdSchema(surface: UsersOf) {
  const { idName, example, whereToFind } = surface.personIds;
  const prefix = `${surface.name}:`;
  return z.string().transform((text, ctx) => {
    const trimmed = text.trim();
    // Bare is accepted whatever the surface's person ids: the list is its own, so its ids cannot be taken for another's.
    const userId = trimmed.toLowerCase().startsWith(prefix) ? trimmed.slice(prefix.length) : trimmed;
    if (surface.personIds.isUserId(userId)) return userId;
    ctx.addIssue({
      code: 'custom',
      message: `is not ${withArticle(idName)} — use IDs such as ${example} or ${surface.name}:${example} (${whereToFind}), not names`,
    });
    return z.NEVER;
  });
}
