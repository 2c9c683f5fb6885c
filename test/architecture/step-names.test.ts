import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRIGGER_KINDS } from '../../src/core/ports/store-records.js';
import { ROOT } from '../helpers/spawn-cli.js';
import { sourceFiles } from './import-graph.js';

/*
 * The glossary's **step** (docs/architecture.md): what one kind of trigger does in the intake worker.
 * A part of a step is a function named by what it does; a file or function named like a step that is
 * not one tells the reader there is a fourth kind of trigger.
 */
const SRC = join(ROOT, 'src');
const steps = TRIGGER_KINDS.map((kind) => `${kind}-step.ts`);

describe('a step is what one kind of trigger does, and nothing else is named one', () => {
  it('the only *-step.ts files are the intake worker’s, one per kind of trigger', () => {
    const named = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('-step.ts'));
    expect(named.sort()).toEqual(steps.map((step) => `core/intake/${step}`).sort());
  });

  it('the glossary lists those steps', () => {
    const glossary = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const row = glossary.split('\n').find((line) => line.startsWith('| **step** |')) ?? '';
    expect([...row.matchAll(/`([\w-]+-step\.ts)`/g)].map((match) => match[1]).sort()).toEqual([...steps].sort());
  });

  it('no function of the core is named …Step but the steps themselves', () => {
    const named = sourceFiles(join(SRC, 'core')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\bfunction\s+(\w+Step)\b|\b(?:const|let)\s+(\w+Step)\s*=/g)].map((match) => match[1] ?? match[2]),
    );
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((name) => !TRIGGER_KINDS.some((kind) => name === `${kind}Step`))).toEqual([]);
  });
});
