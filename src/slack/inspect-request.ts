import { parse as parseQuery } from 'node:querystring';
import { checkSlashCommand, refusedCommandText } from './command-form.js';
import { isConversationId, isMessageTs } from './slack-ids.js';

/** What to do with a verified request to `/slack/events` before Bolt sees it. */
export type Inspection =
  /** Hand on to Bolt; for an Events API callback, with its body already parsed (`eventCallback`). */
  | { action: 'forward'; eventCallback?: Record<string, unknown> & { event: Record<string, unknown> } }
  /** A request we do not handle: 200, nothing happens. */
  | { action: 'ignore'; reason: string }
  /** Malformed: 400 with the reason. */
  | { action: 'reject'; reason: string }
  /**
   * A signed slash command with a malformed field: 200 with this ephemeral answer, nothing stored.
   * Slack shows a non-2xx answer to a slash command as a bare "failed with the error …"; the person
   * who typed it reads this text instead.
   */
  | { action: 'refuse'; reason: string; answer: { response_type: 'ephemeral'; text: string } };

const FORM = 'application/x-www-form-urlencoded';
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const optionalString = (value: unknown) => value === undefined || typeof value === 'string';

/** Fields our listeners read from an event: present ones must have the type Slack documents. */
function eventProblem(event: Record<string, unknown>): string | undefined {
  if (typeof event['type'] !== 'string') return 'event.type must be a string';
  for (const field of ['user', 'text', 'channel', 'ts', 'thread_ts', 'subtype', 'bot_id', 'channel_type', 'reaction', 'item_user']) {
    if (!optionalString(event[field])) return `event.${field} must be a string`;
  }
  // A reaction's message: Bolt reads `item.channel` before any listener runs (a 500 on `item: null`).
  const item = event['item'];
  if (item !== undefined && !isObject(item)) return 'event.item must be an object';
  for (const field of ['type', 'channel', 'ts']) {
    if (isObject(item) && !optionalString(item[field])) return `event.item.${field} must be a string`;
  }
  return undefined;
}

/**
 * The ids a run's place is made of — the event's channel and ts, a reaction's message — when they are
 * not shaped as Slack's: such a signed event would start a run whose every message fails to reach its
 * place, so it is acknowledged and dropped before anything is stored. Names the field, never its value.
 */
function unusablePlace(event: Record<string, unknown>): string | undefined {
  const item = isObject(event['item']) ? event['item'] : {};
  const fields: Array<[string, unknown, (value: string) => boolean, string]> = [
    ['event.channel', event['channel'], isConversationId, 'a Slack conversation id'],
    ['event.ts', event['ts'], isMessageTs, 'a Slack message ts'],
    ['event.thread_ts', event['thread_ts'], isMessageTs, 'a Slack message ts'],
    ['event.item.channel', item['channel'], isConversationId, 'a Slack conversation id'],
    ['event.item.ts', item['ts'], isMessageTs, 'a Slack message ts'],
  ];
  const wrong = fields.find(([, value, shaped]) => typeof value === 'string' && !shaped(value));
  return wrong && `${wrong[0]} is not ${wrong[3]}`;
}

/** Interaction types our listeners acknowledge; Bolt would leave any other unanswered for 3 s. */
const INTERACTIONS = new Set(['block_actions', 'shortcut', 'message_action', 'view_submission', 'view_closed']);

const hasId = (value: unknown) => isObject(value) && typeof value['id'] === 'string';

function inspectInteraction(payload: Record<string, unknown>): Inspection {
  const type = payload['type'] as string;
  if (!INTERACTIONS.has(type)) return { action: 'ignore', reason: `interaction type ${type}` };
  // Bolt reads these before any listener runs: without them it throws (a 500) or matches no listener
  // (no answer for 3 s, then 404).
  if (!hasId(payload['user']) && !hasId(payload['team'])) return { action: 'reject', reason: `${type} without a user or team` };
  if ((type === 'shortcut' || type === 'message_action') && typeof payload['callback_id'] !== 'string') {
    return { action: 'reject', reason: `${type} without a callback_id` };
  }
  if ((type === 'view_submission' || type === 'view_closed') && !(isObject(payload['view']) && typeof payload['view']['callback_id'] === 'string')) {
    return { action: 'reject', reason: `${type} without a view callback_id` };
  }
  if (type === 'block_actions') {
    const actions = payload['actions'];
    const valid = Array.isArray(actions) && actions.length > 0 && actions.every((action) => isObject(action) && typeof action['action_id'] === 'string');
    if (!valid) return { action: 'reject', reason: 'block_actions without actions' };
    if (!isObject(payload['user']) || typeof payload['user']['id'] !== 'string') return { action: 'reject', reason: 'block_actions without a user' };
  }
  return { action: 'forward' };
}

/**
 * Checks the shape of a request Slack signed, so Bolt only sees bodies it can handle: Bolt answers
 * some malformed bodies with a 500, a 404 after three seconds, or never (docs/architecture.md §8 wants 400 for
 * malformed and 200 for what we do not handle). Events without an `event` (e.g. `app_rate_limited`),
 * and events whose channel or ts is not shaped as Slack's, are acknowledged here.
 */
export function inspectSlackRequest(contentType: string | undefined, text: string): Inspection {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === FORM) {
    const fields = parseQuery(text);
    if (typeof fields['payload'] === 'string') {
      let payload: unknown;
      try {
        payload = JSON.parse(fields['payload']);
      } catch {
        return { action: 'reject', reason: 'payload is not JSON' };
      }
      if (!isObject(payload) || typeof payload['type'] !== 'string') return { action: 'reject', reason: 'payload must be an object with a type' };
      return inspectInteraction(payload);
    }
    if (fields['command'] !== undefined) {
      const check = checkSlashCommand(fields);
      if (check.ok) return { action: 'forward' };
      return {
        action: 'refuse',
        reason: `slash command ${check.field} ${check.problem}`,
        answer: { response_type: 'ephemeral', text: refusedCommandText(check) },
      };
    }
    if (fields['ssl_check'] === '1') return { action: 'forward' };
    return { action: 'reject', reason: 'form body is neither a command nor an interaction' };
  }
  if (type !== 'application/json') return { action: 'reject', reason: `unsupported content type ${type || '(none)'}` };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { action: 'reject', reason: 'body is not JSON' };
  }
  if (!isObject(body) || typeof body['type'] !== 'string') return { action: 'reject', reason: 'body must be an object with a type' };
  if (body['type'] === 'url_verification') {
    return typeof body['challenge'] === 'string' ? { action: 'forward' } : { action: 'reject', reason: 'url_verification without a challenge' };
  }
  if (body['type'] !== 'event_callback') return { action: 'ignore', reason: `envelope type ${String(body['type'])}` };
  const event = body['event'];
  if (!isObject(event)) return { action: 'reject', reason: 'event_callback without an event' };
  if (typeof body['event_id'] !== 'string') return { action: 'reject', reason: 'event_callback without an event_id' };
  const authorizations = body['authorizations'];
  if (authorizations !== undefined && !(Array.isArray(authorizations) && authorizations.every(isObject))) {
    return { action: 'reject', reason: 'authorizations must be a list of objects' };
  }
  const problem = eventProblem(event);
  if (problem) return { action: 'reject', reason: problem };
  const unusable = unusablePlace(event);
  return unusable
    ? { action: 'ignore', reason: unusable }
    : { action: 'forward', eventCallback: body as Record<string, unknown> & { event: Record<string, unknown> } };
}
