/**
 * The environment the service sees: the real environment over an optional `.env` file in the
 * working directory. The real environment wins; an empty real value counts as unset, so the
 * `.env` value applies then. `process.env` is never read nor changed here: the caller passes it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import type { ConfigProblem } from './problems.js';

export type Environment = Record<string, string | undefined>;

export interface DotEnv {
  /** Absolute path of the `.env` file read, if one was present. */
  file: string | undefined;
  values: Record<string, string>;
  problems: ConfigProblem[];
}

/** Reads `<cwd>/.env` when present. A missing file is normal; an unreadable one is a problem. */
export function readDotEnv(cwd: string): DotEnv {
  const file = path.resolve(cwd, '.env');
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { file: undefined, values: {}, problems: [] };
    return {
      file: undefined,
      values: {},
      problems: [
        {
          where: '.env',
          message: `cannot be read (${code ?? 'error'})`,
          hint: 'make it a readable file, or remove it and set the variables in the environment',
        },
      ],
    };
  }
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseEnv(content))) {
    if (value !== undefined) values[name] = value;
  }
  return { file, values, problems: [] };
}

/** Where a variable's value came from: the real environment, or the `.env` file. */
export type EnvSource = 'env' | '.env';

/** For each of `names` that is set, where its value comes from (by the rule of `mergeEnvironment`). */
export function environmentSources(names: readonly string[], real: Environment, dotenv: Record<string, string>): Record<string, EnvSource> {
  const sources: Record<string, EnvSource> = {};
  for (const name of names) {
    if (real[name]?.trim()) sources[name] = 'env';
    else if (dotenv[name]?.trim()) sources[name] = '.env';
  }
  return sources;
}

/** `real` over `dotenv`; values are trimmed and empty ones dropped (empty counts as unset). */
export function mergeEnvironment(real: Environment, dotenv: Record<string, string>): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const source of [dotenv, real]) {
    for (const [name, value] of Object.entries(source)) {
      const trimmed = value?.trim();
      if (trimmed) merged[name] = trimmed;
    }
  }
  return merged;
}
