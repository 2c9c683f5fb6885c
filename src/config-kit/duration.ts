/**
 * Durations in the config file: `<integer><unit>` with unit `ms`, `s`, `m`, `h` — and `d` (days),
 * which the documented default `dedupe_retention: 7d` needs. No spaces, no fractions, no
 * combinations (`1h30m`): write `90m`.
 */

export const DURATION_UNITS = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
} as const;

export type DurationUnit = keyof typeof DURATION_UNITS;

const DURATION_PATTERN = /^(\d+)(ms|s|m|h|d)$/;

/** Milliseconds, or `undefined` when `text` is not `<integer><ms|s|m|h|d>` (or too large). */
export function parseDuration(text: string): number | undefined {
  const match = DURATION_PATTERN.exec(text);
  if (!match) return undefined;
  const amount = Number(match[1]);
  const ms = amount * DURATION_UNITS[match[2] as DurationUnit];
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** The shortest exact spelling: 604800000 → `7d`, 90000 → `90s`, 1500 → `1500ms`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const units: DurationUnit[] = ['d', 'h', 'm', 's'];
  for (const unit of units) {
    const size = DURATION_UNITS[unit];
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/** Why `text` is not a duration, phrased as what to write instead. */
export function durationSyntaxHelp(text: string): string {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return `"${trimmed}" has no unit — write e.g. ${trimmed}s or ${trimmed}m`;
  if (/^\d+\.\d+/.test(trimmed)) return `"${trimmed}" is not a whole number — use a smaller unit, e.g. 1500ms or 90m`;
  if (/^\d+[a-z]+(\d+[a-z]+)+$/i.test(trimmed)) return `"${trimmed}" combines units — write a single one, e.g. 90m`;
  return `"${trimmed}" is not a duration — write <integer><ms|s|m|h|d>, e.g. 500ms, 10s, 15m, 2h, 7d`;
}
