/**
 * The keys of an issue tracker's section (`linear:`, `jira:`, and `github:`'s handle and labels): how a
 * comment addresses the bot, the workflow moves the bridge makes, and labels, whose names are
 * case-insensitive.
 */
import { z } from 'zod';
import { contextSchema, followups, followupWindow } from './conversation-keys.js';
import { section, text, withDefault } from './file-schema-parts.js';

/**
 * A tracker whose issues a chat message may name, binding its run to the issue too: the chat's section
 * gets a key `link_<surface>_issues` for it (`issueLinkKey`). Built by the config from the registered
 * trackers that offer an issue linker and handed to every slice with the route parts.
 */
export interface IssueLinkOffer {
  /** The tracker's surface name. */
  readonly surface: string;
  /** Said of the key set while the tracker is off: the message starts its run without the issue. */
  readonly whenOff: { readonly message: string; readonly hint: string };
}

/** A chat's key linking a mention naming an issue of `tracker` to that issue (`link_linear_issues`). */
export function issueLinkKey(tracker: string): `link_${string}_issues` {
  return `link_${tracker}_issues`;
}

/** How a comment addresses the bot: its first word, so one word (`linear.handle`, `jira.handle`, `github.handle`). */
export const handleSchema = withDefault(
  text.refine((handle) => !/\s/.test(handle), {
    error: 'must be a single word (it is matched as the first word of a comment), e.g. "@agent"',
  }),
  '@agent',
);

/** The keys an issue tracker's section shares (`linear:` and `jira:`, which has the same keys and meanings). */
export const trackerShape = {
  handle: handleSchema,
  followups: withDefault(followups, 'mentions'),
  cancel_on_label_removed: withDefault(z.boolean(), true),
  context: contextSchema,
  // As slack.followup_window, for comments with followups: all.
  followup_window: followupWindow,
  // The workflow moves agent-bridge makes (by transition or state name): when a run starts, and when a pull request appears.
  states: withDefault(section({ started: text.optional(), pull_request: text.optional() }), {}),
};

/** Label names are case-insensitive: two keys naming one label, or an empty one, are problems. */
export function checkLabelNames(labels: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const seen = new Map<string, string>();
  for (const key of Object.keys(labels)) {
    const lower = key.trim().toLowerCase();
    if (lower === '') {
      ctx.addIssue({ code: 'custom', path: [key], message: 'label name must not be empty' });
      continue;
    }
    const earlier = seen.get(lower);
    if (earlier !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `same label as "${earlier}" (label names are case-insensitive) — keep one of them`,
      });
    }
    seen.set(lower, key);
  }
}

/** Keys that are the same once lower-cased (repository names and labels are case-insensitive) would make the route depend on the file's order. */
export function uniqueIgnoringCase(what: string) {
  return (record: Record<string, unknown>, ctx: z.RefinementCtx) => {
    if (record === null || typeof record !== 'object') return;
    const seen = new Map<string, string>();
    for (const key of Object.keys(record)) {
      const lower = key.trim().toLowerCase();
      const earlier = seen.get(lower);
      if (earlier !== undefined) {
        ctx.addIssue({ code: 'custom', path: [key], message: `same ${what} as "${earlier}" (${what} names are case-insensitive) — keep one of them` });
      }
      seen.set(lower, key);
    }
  };
}
