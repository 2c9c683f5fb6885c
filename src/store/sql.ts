/** Small conversions shared by the SQLite repositories: JSON as TEXT, booleans as 0/1. */

/** JSON text for a column; `undefined` is stored as `null`. */
export function toJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/** The value of a JSON column (null stays null). */
export function fromJson(text: string | null): unknown {
  return text === null ? null : (JSON.parse(text) as unknown);
}

export function toFlag(value: boolean): 0 | 1 {
  return value ? 1 : 0;
}

/** Object with every state as key and 0 as value, filled from `GROUP BY state` rows. */
export function countStates<S extends string>(states: readonly S[], rows: ReadonlyArray<{ state: string; n: number }>): Record<S, number> {
  const counts = Object.fromEntries(states.map((s) => [s, 0])) as Record<S, number>;
  for (const row of rows) {
    if ((states as readonly string[]).includes(row.state)) counts[row.state as S] = row.n;
  }
  return counts;
}
