/** A numbered schema change, applied once, in its own transaction. */
export interface Migration {
  /** 1, 2, 3, … in order, never reused. */
  id: number;
  name: string;
  sql: string;
}
