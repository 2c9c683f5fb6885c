/**
 * People in `agent-bridge.yml`: `approval.approvers` and `console.admins` name persons of any chat
 * surface (`U0123ABCD` bare for Slack, `<surface>:<id>` for any), and a chat surface's own
 * `allowed_users` names its users, bare or qualified. Both are read into the one form code compares:
 * the canonical person id, or the user id the platform sends.
 */
import { z } from 'zod';
import { PersonIds, withArticle, type PeopleSurface } from '../surface-kit/person-ids.js';

/** What the config needs to read person ids: the registered chat surfaces' (`PersonIds`), or a test's. */
export type PersonIdReader = Pick<PersonIds, 'parse' | 'expected'>;

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
export function ownUserIdSchema(surface: PeopleSurface) {
  // Bare is always accepted here: the list is the surface's own, so its ids cannot be taken for another's.
  const own = new PersonIds([{ ...surface, personIds: { ...surface.personIds, bare: true } }]);
  const { idName, example, whereToFind } = surface.personIds;
  return z.string().transform((text, ctx) => {
    const parsed = own.parse(text.trim());
    if (parsed) return parsed.userId;
    ctx.addIssue({
      code: 'custom',
      message: `is not ${withArticle(idName)} — use IDs such as ${example} or ${surface.name}:${example} (${whereToFind}), not names`,
    });
    return z.NEVER;
  });
}
