/** Field checks shared by the webhook parsers: each failure names the field (`data.title must be a string`). */

export type Json = Record<string, unknown>;

export interface LinearLabel {
  id: string;
  name: string;
}

/** Thrown inside the parsers only; becomes `{ok: false, reason}`. */
export class Problem extends Error {}

export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
export const own = (object: Json, key: string): unknown => (Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined);

export function requiredString(object: Json, key: string, path: string): string {
  const value = own(object, key);
  if (typeof value !== 'string') throw new Problem(`${path}.${key} must be a string`);
  return value;
}

export function optionalString(object: Json, key: string, path: string): string | undefined {
  const value = own(object, key);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new Problem(`${path}.${key} must be a string`);
  return value;
}

export function optionalObject(object: Json, key: string, path: string): Json | undefined {
  const value = own(object, key);
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new Problem(`${path}.${key} must be an object`);
  return value;
}

export function stringArray(value: unknown, path: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new Problem(`${path} must be an array of strings`);
  return [...value] as string[];
}

export function labelArray(value: unknown, path: string): LinearLabel[] {
  if (!Array.isArray(value)) throw new Problem(`${path} must be an array of labels`);
  return value.map((item, index) => {
    if (!isObject(item)) throw new Problem(`${path}[${index}] must be an object`);
    return { id: requiredString(item, 'id', `${path}[${index}]`), name: requiredString(item, 'name', `${path}[${index}]`) };
  });
}

/** Copies only the defined values, so absent fields stay absent (not `undefined` keys). */
export function defined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}
