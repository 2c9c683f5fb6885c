/**
 * The zod pieces every environment variable is checked with. A check records a problem with its hint
 * (where to find the right value) and never echoes the value: it may be a secret.
 */
import { z } from 'zod';

type Ctx = z.core.$RefinementCtx<string | undefined>;

/** Records a problem; the returned value is never used (zod discards the output of a failed value). */
export function fail(ctx: Ctx, message: string, hint?: string): never {
  ctx.addIssue({ code: 'custom', message, ...(hint ? { params: { hint } } : {}) });
  return z.NEVER;
}

/** A variable as it arrives: trimmed text, `undefined` when unset or empty. */
export const optionalText = z.string().optional();

/** A secret: any text without spaces or line breaks (a pasted "Bearer …" or a stray newline). */
export function secret(hint: string) {
  return optionalText.transform((value, ctx) => {
    if (value !== undefined && /\s/.test(value)) return fail(ctx, 'contains a space or line break — set the bare value only', hint);
    return value;
  });
}
