/**
 * The fake Web API's methods for Slack's own places: the Home tab (`views.publish`),
 * modals (`views.open`), link previews (`chat.unfurl`) and the assistant panel
 * (`assistant.threads.setStatus`, `setSuggestedPrompts`, `setTitle`). Each checks the arguments Slack
 * requires and answers Slack's error for a missing or wrong one; calls are recorded by the server.
 */
import type { SlackAnswer } from './slack-state.js';

type Args = Record<string, unknown>;

const fail = (error: string): SlackAnswer => ({ ok: false, error });
const text = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const object = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

let viewCounter = 0;

/** Answers one of these methods; `undefined` for any other method. */
export function handlePlaces(method: string, args: Args): SlackAnswer | undefined {
  switch (method) {
    case 'views.publish': {
      if (!text(args['user_id'])) return fail('invalid_arguments');
      const view = args['view'];
      if (!object(view) || view['type'] !== 'home' || !Array.isArray(view['blocks'])) return fail('invalid_arguments');
      if (view['blocks'].length > 100) return fail('invalid_blocks');
      return { ok: true, view: { id: `VHOME${++viewCounter}`, type: 'home', blocks: view['blocks'] } };
    }
    case 'views.open': {
      if (!text(args['trigger_id'])) return fail('invalid_arguments');
      const view = args['view'];
      if (!object(view) || view['type'] !== 'modal' || !Array.isArray(view['blocks'])) return fail('invalid_arguments');
      return { ok: true, view: { id: `VMODAL${++viewCounter}`, type: 'modal', callback_id: view['callback_id'] } };
    }
    case 'chat.unfurl': {
      const byMessage = text(args['channel']) && text(args['ts']);
      const byId = text(args['unfurl_id']) && text(args['source']);
      if (!byMessage && !byId) return fail('invalid_arguments');
      if (!object(args['unfurls'])) return fail('invalid_unfurls_format');
      return { ok: true };
    }
    case 'assistant.threads.setStatus':
      if (!text(args['channel_id']) || !text(args['thread_ts']) || typeof args['status'] !== 'string') return fail('invalid_arguments');
      return { ok: true };
    case 'assistant.threads.setSuggestedPrompts': {
      // thread_ts only in an assistant thread: an agent app's prompts are its Messages tab's (no thread).
      const prompts = args['prompts'];
      if (!text(args['channel_id']) || (args['thread_ts'] !== undefined && !text(args['thread_ts']))) return fail('invalid_arguments');
      if (!Array.isArray(prompts) || prompts.length < 1 || prompts.length > 4) return fail('invalid_arguments');
      if (!prompts.every((prompt) => object(prompt) && text(prompt['title']) && text(prompt['message']))) return fail('invalid_arguments');
      return { ok: true };
    }
    case 'assistant.threads.setTitle':
      if (!text(args['channel_id']) || !text(args['thread_ts']) || !text(args['title'])) return fail('invalid_arguments');
      return { ok: true };
    default:
      return undefined;
  }
}
