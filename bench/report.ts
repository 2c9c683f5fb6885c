/**
 * What a benchmark section hands back, and how `bench/run.ts` prints it: every figure next to the
 * baseline measured in the same run, the ratio between them, and the target it is held to.
 */

export interface Baseline {
  /** What the baseline is, e.g. "per-run GET poller". */
  label: string;
  value: number;
}

export interface Target {
  /** e.g. "< 200 ms". */
  text: string;
  met: boolean;
}

export interface Figure {
  section: string;
  name: string;
  value: number;
  unit: string;
  baseline?: Baseline;
  target?: Target;
  /** Anything a reader must know to read the number (e.g. "extrapolated from 1,000 GETs"). */
  note?: string;
}

export interface Section {
  title: string;
  figures: Figure[];
  /** Lines printed under the section's table (setup, caveats). */
  notes: string[];
}

/** Value at quantile q (0–1) of the samples, nearest-rank. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

export const median = (samples: readonly number[]): number => quantile(samples, 0.5);

/** CPU time (user + system) in ms spent by the whole process while `fn` ran, and its wall time. */
export async function measure<T>(fn: () => Promise<T>): Promise<{ result: T; cpuMs: number; wallMs: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = await fn();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { result, cpuMs: (used.user + used.system) / 1000, wallMs };
}

export function formatNumber(value: number, unit: string): string {
  if (!Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  const digits = Number.isInteger(value) || abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  const text = value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit ? `${text} ${unit}` : text;
}

function ratio(figure: Figure): string {
  if (!figure.baseline || !Number.isFinite(figure.baseline.value) || figure.baseline.value === 0) return '';
  const r = figure.value / figure.baseline.value;
  if (r > 0 && r < 0.01) return `1/${Math.round(1 / r).toLocaleString('en-US')}`;
  return `${r >= 10 ? r.toFixed(0) : r >= 1 ? r.toFixed(1) : r.toFixed(2)}×`;
}

function verdict(target: Target | undefined): string {
  if (!target) return '';
  return target.met ? 'met' : 'MISSED';
}

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

export function renderSection(section: Section): string {
  const rows = section.figures.map((figure) => [
    figure.name,
    formatNumber(figure.value, figure.unit),
    figure.baseline ? `${formatNumber(figure.baseline.value, figure.unit)} (${figure.baseline.label})` : '',
    ratio(figure),
    figure.target?.text ?? '',
    verdict(figure.target),
  ]);
  const body = table(['figure', 'measured', 'baseline (same run)', 'ratio', 'target', ''], rows);
  const notes = [...section.notes, ...section.figures.filter((f) => f.note).map((f) => `${f.name}: ${f.note}`)];
  return [`## ${section.title}`, '', body, ...(notes.length ? ['', ...notes.map((note) => `  * ${note}`)] : [])].join('\n');
}

export function renderSummary(sections: Section[]): string {
  const targeted = sections.flatMap((section) => section.figures.filter((figure) => figure.target));
  const rows = targeted.map((figure) => [
    `${figure.section}: ${figure.name}`,
    formatNumber(figure.value, figure.unit),
    figure.target?.text ?? '',
    verdict(figure.target),
  ]);
  const missed = targeted.filter((figure) => !figure.target?.met).length;
  return [
    '## Summary',
    '',
    table(['figure', 'measured', 'target', ''], rows),
    '',
    missed === 0 ? `All ${targeted.length} targets met.` : `${missed} of ${targeted.length} targets MISSED.`,
  ].join('\n');
}

/** Resolves after ms. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `fn` but fails after `ms` (every section is bounded in time). */
export async function withDeadline<T>(what: string, ms: number, fn: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms; giving up`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([fn(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
