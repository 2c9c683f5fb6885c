/** The shapes of the Teams ids the configuration and the edge name, and what is said of an id of another shape. */
import type { PersonIdShape } from '../../surface-kit/person-ids.js';

/** An Entra (Azure AD) object id or app id: a GUID. */
export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A Teams channel or group chat conversation id (`19:…@thread.tacv2`; older channels `@thread.skype`, chats `@thread.v2`). */
export const TEAMS_CHANNEL_ID = /^19:[A-Za-z0-9_.=+-]{1,200}@thread\.(?:tacv2|skype|v2)$/;

export const CHANNEL_ID_HINT =
  'use the channel id (19:…@thread.tacv2: in Teams, ⋯ beside the channel → Get link to channel; the id is the part after /channel/, URL-decoded), or "*" for every other channel, group chat and 1:1 chat';

/** Teams' users as the bridge's people: `teams:<Entra object id>`, lower-case as Entra writes it. */
export const TEAMS_PERSON_IDS: PersonIdShape = {
  isUserId: (id) => GUID.test(id),
  example: '6e1c2f5a-0b1d-4c8e-9f3a-2d7b8c9e0f11',
  idName: 'Teams user’s Entra object ID',
  whereToFind: 'Microsoft Entra admin center → Users → the person → Object ID',
  normalise: (typed) => typed.toLowerCase(),
};
