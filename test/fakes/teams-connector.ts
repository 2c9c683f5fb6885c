/**
 * The conversations of the fake Microsoft Teams (`teams-api.ts`): what the Bot Connector REST API
 * answers once the caller's token is accepted. After "API reference for the Bot Framework Connector
 * service" (https://learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-api-reference):
 *
 * - `POST /v3/conversations/{conversationId}/activities` (Send to conversation): the body is an
 *   Activity; the answer a ResourceResponse `{id}`. Into a channel thread the conversation id is the
 *   thread's, `<channel id>;messageid=<root id>`.
 * - `PUT /v3/conversations/{conversationId}/activities/{activityId}` (Update activity): replaces the
 *   activity, answers `{id}`; an id the conversation does not have is 404.
 * - `GET /v3/conversations/{conversationId}/members/{memberId}` (Get conversation member): one member,
 *   in the shape "Get Teams specific context for your bot" shows
 *   (https://learn.microsoft.com/microsoftteams/platform/bots/how-to/get-teams-context#get-single-member-details):
 *   `{id, name, objectId, givenName, surname, email, userPrincipalName, tenantId, userRole}`. That page
 *   writes the Entra object id `objectId`; the SDKs' TeamsChannelAccount reads `aadObjectId`, so the fake
 *   sends both.
 *
 * - `POST /v3/conversations` (Create conversation): with one member and `isGroup: false`, the 1:1 chat
 *   of the bot with that person (the same one each time: Teams keeps one per person and bot), answered
 *   `{id}`; a member the roster does not have is 404.
 *
 * Errors are the reference's ErrorResponse `{error: {code, message}}`; the codes are the connector's own
 * words (the reference lists none).
 */

type Json = Record<string, unknown>;

/** A person Teams knows, as the roster gives them. */
export interface FakeTeamsMember {
  /** The Teams user id (`29:…`), as in an activity's `from.id`. */
  id: string;
  name: string;
  /** The Entra object id (`from.aadObjectId`). */
  aadObjectId: string;
  email?: string;
  userPrincipalName?: string;
  givenName?: string;
  surname?: string;
}

/** An activity the bot posted, with every version it had (the first as posted, the last as shown). */
export interface PostedActivity {
  id: string;
  conversationId: string;
  /** The service URL it was posted through (region), e.g. `http://127.0.0.1:PORT/amer/`. */
  serviceUrl: string;
  activity: Json;
  versions: Json[];
}

/** The connector's answer to one call. */
export interface ConnectorAnswer {
  status: number;
  body?: unknown;
}

const error = (status: number, code: string, message: string): ConnectorAnswer => ({ status, body: { error: { code, message } } });

/** The conversations and roster of one fake tenant, and the connector calls on them. */
export function teamsConnector(tenantId: string) {
  const posted: PostedActivity[] = [];
  const members: Array<{ member: FakeTeamsMember; conversations: string[] | undefined }> = [];
  const chats: string[] = [];
  // Teams message ids are millisecond timestamps; any increasing number reads the same to a client.
  let nextId = 1_760_000_000_000;

  const memberJson = (member: FakeTeamsMember): Json => ({
    id: member.id,
    name: member.name,
    objectId: member.aadObjectId,
    aadObjectId: member.aadObjectId,
    ...(member.givenName !== undefined && { givenName: member.givenName }),
    ...(member.surname !== undefined && { surname: member.surname }),
    ...(member.email !== undefined && { email: member.email }),
    ...(member.userPrincipalName !== undefined && { userPrincipalName: member.userPrincipalName }),
    tenantId,
    userRole: 'user',
  });

  const isActivity = (body: unknown): body is Json =>
    typeof body === 'object' && body !== null && !Array.isArray(body) && typeof (body as Json)['type'] === 'string';

  /** Answers a call on `/v3/…` (the path after the service URL, decoded segment by segment). */
  const answer = (method: string, segments: string[], body: unknown, serviceUrl: string): ConnectorAnswer => {
    const [v3, conversations, conversationId, kind, itemId, ...rest] = segments;
    if (v3 === 'v3' && conversations === 'conversations' && conversationId === undefined && method === 'POST') return createConversation(body);
    if (v3 !== 'v3' || conversations !== 'conversations' || !conversationId || rest.length > 0) return error(404, 'NotFound', 'No such operation.');
    if (kind === 'activities' && itemId === undefined && method === 'POST') {
      if (!isActivity(body)) return error(400, 'BadArgument', 'The request body is not an Activity.');
      const id = String((nextId += 1));
      posted.push({ id, conversationId, serviceUrl, activity: body, versions: [body] });
      return { status: 201, body: { id } };
    }
    if (kind === 'activities' && itemId !== undefined && method === 'PUT') {
      const found = posted.find((entry) => entry.id === itemId && entry.conversationId === conversationId);
      if (!found) return error(404, 'ActivityNotFoundInConversation', 'The activity was not found in the conversation.');
      if (!isActivity(body)) return error(400, 'BadArgument', 'The request body is not an Activity.');
      found.activity = body;
      found.versions.push(body);
      return { status: 200, body: { id: found.id } };
    }
    if (kind === 'members' && itemId !== undefined && method === 'GET') {
      const found = members.find(
        ({ member, conversations: where }) =>
          (member.id === itemId || member.aadObjectId === itemId) && (where === undefined || where.includes(conversationId)),
      );
      return found
        ? { status: 200, body: memberJson(found.member) }
        : error(404, 'MemberNotFoundInConversation', 'The member was not found in the conversation.');
    }
    return error(405, 'MethodNotAllowed', 'The connector does not offer this operation.');
  };

  /** The 1:1 chat of the bot with the one member named, as Teams keeps it: one per person. */
  const createConversation = (body: unknown): ConnectorAnswer => {
    const request = body as { members?: Array<{ id?: unknown }>; isGroup?: unknown } | undefined;
    const memberId = request?.members?.[0]?.id;
    if (request?.isGroup === true || request?.members?.length !== 1 || typeof memberId !== 'string') {
      return error(400, 'BadArgument', 'A 1:1 conversation needs exactly one member.');
    }
    const found = members.find(({ member }) => member.id === memberId || member.aadObjectId === memberId);
    if (!found) return error(404, 'MemberNotFound', 'The member was not found in the tenant.');
    const id = `a:1personal-${found.member.aadObjectId}`;
    if (!chats.includes(id)) chats.push(id);
    return { status: 201, body: { id } };
  };

  return {
    answer,
    /** The 1:1 chats opened by `POST /v3/conversations`, in order. */
    chats,
    posted,
    /** Adds a person to the roster: of the given conversations, or of every one. */
    addMember: (member: FakeTeamsMember, conversations?: string[]) => {
      members.push({ member, conversations });
    },
  };
}
