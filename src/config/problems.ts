/**
 * Configuration problems: what is wrong, where (an environment variable or `<file>: <key path>`),
 * and what to do. Every problem found is collected; `ConfigError` lists them all, one per line.
 * No problem text ever contains a secret value.
 */
import type { z } from 'zod';
import { ALLOWED_KEYS_PREFIX, formatPath, type ConfigProblem } from '../config-kit/problem.js';

export { formatPath, type ConfigProblem };

export function formatProblem(problem: ConfigProblem): string {
  return `${problem.where}: ${problem.message}${problem.hint ? ` (${problem.hint})` : ''}`;
}

export class ConfigError extends Error {
  readonly problems: ConfigProblem[];

  constructor(problems: ConfigProblem[]) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super([`Invalid configuration (${count}):`, ...problems.map((p) => `  - ${formatProblem(p)}`)].join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function describeKind(value: unknown): string {
  if (value === null) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return 'text';
    case 'number':
      return 'a number';
    case 'boolean':
      return `${value}`;
    case 'object':
      return 'a mapping';
    default:
      return typeof value;
  }
}

const EXPECTED: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a mapping (key: value)',
  record: 'a mapping (key: value)',
  array: 'a list',
};

/** Edit distance, for "did you mean" on unknown keys. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const saved = row[j] as number;
      row[j] = Math.min((row[j] as number) + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = saved;
    }
  }
  return row[b.length] as number;
}

function unknownKeyHint(key: string, allowed: string[]): string {
  const close = allowed
    .map((candidate) => ({ candidate, d: distance(key.toLowerCase(), candidate.toLowerCase()) }))
    .filter(({ d }) => d <= 2)
    .sort((x, y) => x.d - y.d)[0];
  const list = `allowed here: ${allowed.join(', ')}`;
  return close ? `did you mean "${close.candidate}"? ${list}` : list;
}

/** Scalar shown back to the user: only short text outside route `config` (which may hold secrets). */
function shownValue(value: unknown, path: readonly PropertyKey[]): string {
  if (path.includes('config')) return '';
  if (typeof value === 'string' && value.length <= 40) return ` (found "${value}")`;
  if (typeof value === 'number' || typeof value === 'boolean') return ` (found ${value})`;
  return '';
}

/**
 * One zod issue as problems (an unknown-keys issue becomes one problem per key, with the key in
 * the path). `root` is the parsed input, used to say what was found.
 */
export function zodIssueToProblems(issue: z.core.$ZodIssue, label: string, root: unknown): ConfigProblem[] {
  return issueProblems(issue, label, root).map((problem) => nameSchedule(problem, issue.path, root));
}

function issueProblems(issue: z.core.$ZodIssue, label: string, root: unknown): ConfigProblem[] {
  const where = (path: readonly PropertyKey[]) => (path.length === 0 ? label : `${label}: ${formatPath(path)}`);
  const path = issue.path;
  const found = valueAt(root, path);
  const params = (issue as { params?: { hint?: unknown } }).params;
  const hint = typeof params?.hint === 'string' ? params.hint : undefined;
  const withHint = (problem: ConfigProblem): ConfigProblem => (hint ? { ...problem, hint } : problem);

  switch (issue.code) {
    case 'unrecognized_keys': {
      const allowed = issue.message.startsWith(ALLOWED_KEYS_PREFIX) ? issue.message.slice(ALLOWED_KEYS_PREFIX.length).split(', ') : [];
      return issue.keys.map((key) => ({
        where: where([...path, key]),
        message: 'unknown key — remove it or fix its spelling',
        ...(allowed.length > 0 ? { hint: unknownKeyHint(key, allowed) } : {}),
      }));
    }
    case 'invalid_type': {
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      if (found === undefined) return [withHint({ where: where(path), message: `is required — set it to ${expected}` })];
      return [withHint({ where: where(path), message: `must be ${expected}, found ${describeKind(found)}` })];
    }
    case 'invalid_value':
      return [
        withHint({
          where: where(path),
          message: `must be one of: ${issue.values.map(String).join(', ')}${shownValue(found, path)}`,
        }),
      ];
    case 'too_small':
    case 'too_big': {
      const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
      let message: string;
      if (issue.origin === 'string' && issue.code === 'too_small' && Number(bound) <= 1) message = 'must not be empty';
      else if (issue.origin === 'number') {
        message = `must be ${issue.code === 'too_small' ? 'at least' : 'at most'} ${String(bound)}${shownValue(found, path)}`;
      } else
        message = `${issue.code === 'too_small' ? 'needs at least' : 'allows at most'} ${String(bound)} ${issue.origin === 'string' ? 'characters' : 'items'}`;
      return [withHint({ where: where(path), message })];
    }
    case 'invalid_key': {
      const inner = issue.issues[0]?.message ?? 'invalid key';
      return [withHint({ where: where(path), message: inner })];
    }
    default:
      return [withHint({ where: where(path), message: issue.message })];
  }
}

/** Adds `schedule "<name>": ` to problems under `schedules[i]`, so a reader finds the entry by name. */
function nameSchedule(problem: ConfigProblem, path: readonly PropertyKey[], root: unknown): ConfigProblem {
  if (path[0] !== 'schedules' || typeof path[1] !== 'number') return problem;
  const name = valueAt(root, ['schedules', path[1], 'name']);
  if (typeof name !== 'string' || name.trim() === '' || name.length > 64) return problem;
  if (problem.message.includes(`"${name.trim()}"`)) return problem;
  return { ...problem, message: `schedule "${name.trim()}": ${problem.message}` };
}
