/**
 * The zod pieces `agent-bridge.yml` is built from (docs/configuration.md "Config file"): every key is
 * optional with its documented default, an empty value (`slack:` with nothing after it) counts as unset,
 * and unknown keys are errors that list the keys allowed there.
 */
import { z } from 'zod';
import { durationSyntaxHelp, formatDuration, parseDuration } from './duration.js';
import { ALLOWED_KEYS_PREFIX } from './problem.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

const unsetIfNull = (value: unknown): unknown => (value === null ? undefined : value);
/** An empty value where a mapping goes (`agent:` with nothing after it) is an empty mapping. */
export const emptyIfNull = (value: unknown): unknown => (value === null ? {} : value);
/** Refinements run even when other keys are wrong, so one start reports every problem. */
export const always = { when: () => true };

/** Optional key: `null` (an empty YAML value) counts as unset. */
export function optional<T extends z.ZodType>(schema: T) {
  return z.preprocess(unsetIfNull, schema.optional());
}

/** Optional key with a default (used as the output as it is). */
export function withDefault<T extends z.ZodType>(schema: T, value: z.util.NoUndefined<z.output<T>>) {
  return z.preprocess(unsetIfNull, schema.default(value));
}

/** Optional section: when unset, `{}` is parsed, so the section's own defaults apply. */
export function section<T extends z.ZodRawShape>(shape: T) {
  const schema = strict(shape);
  return z.preprocess(unsetIfNull, schema.prefault({} as z.input<typeof schema>));
}

/** Strict object whose unknown-key issue lists the allowed keys (read back in config/problems.ts). */
export function strict<T extends z.ZodRawShape>(shape: T) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `${ALLOWED_KEYS_PREFIX}${allowed}` : undefined),
  });
}

/** Text that is not blank once trimmed. */
export const text = z.string().trim().min(1);

/** A duration (`10s`, `15m`, `7d`) within `min` and `max` milliseconds, read as milliseconds. */
export function duration(min: number, max: number) {
  return z.unknown().transform((value, ctx): number => {
    const shown = typeof value === 'number' ? String(value) : value;
    if (typeof shown !== 'string') {
      ctx.addIssue({ code: 'custom', message: 'must be a duration such as 10s, 15m or 7d' });
      return z.NEVER;
    }
    const ms = parseDuration(shown.trim());
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: durationSyntaxHelp(shown) });
      return z.NEVER;
    }
    if (ms < min || ms > max) {
      const bound = ms < min ? `at least ${formatDuration(min)}` : `at most ${formatDuration(max)}`;
      ctx.addIssue({ code: 'custom', message: `must be ${bound} (found ${shown.trim()})` });
      return z.NEVER;
    }
    return ms;
  });
}
