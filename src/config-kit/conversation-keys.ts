/**
 * The keys of every surface where people converse with a run (`slack:`, `linear:`, `jira:`): which
 * replies go to the run, how much earlier conversation goes with it, and how long replies gather.
 */
import { z } from 'zod';
import { duration, section, withDefault } from './file-schema-parts.js';

/** `followups`: every reply in a run's thread goes to the run, or only those that address the bot. */
export type Followups = 'all' | 'mentions';

/** `<surface>.context`: the latest earlier messages a start or follow-up carries, within both bounds. */
export interface ContextLimits {
  messages: number;
  characters: number;
}

export const followups = z.enum(['all', 'mentions']);

/** How much earlier conversation goes with a start or a follow-up: the latest messages within both bounds. */
export const contextSchema = section({
  messages: withDefault(z.int().min(0).max(200), 20),
  characters: withDefault(z.int().min(0).max(100_000), 8_000),
});

/** `followup_window`: with `followups: all`, replies within it after the first go to the run as one follow-up (0 = each alone). */
export const followupWindow = withDefault(duration(0, 60_000), 2_000);
