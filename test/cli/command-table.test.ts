import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { ROOT } from '../helpers/spawn-cli.js';

/*
 * docs/cli-and-emulator.md's command table lists every command `agent-bridge --help` offers (down to
 * the subcommands, e.g. `secrets rotate`), and nothing else: a command added without its row, or a
 * row left after its command went, fails here. The README's terminal commands run at once in a clone.
 */

/** Every command a person can run: `serve`, `runs list`, `secrets rotate`, … (commander's own `help` aside). */
function commandPaths(command: Command, prefix: string[] = []): string[] {
  return command.commands.flatMap((sub) => {
    const path = [...prefix, sub.name()];
    return sub.commands.length > 0 ? commandPaths(sub, path) : [path.join(' ')];
  });
}

const silent = { out: () => {}, err: () => {}, env: {}, cwd: ROOT, now: () => 0, sleep: () => Promise.resolve() };
const commands = commandPaths(buildProgram(silent, () => {}));
/** The table's first column: the command as written, `agent-bridge …` up to its arguments and options. */
const rows = readFileSync(join(ROOT, 'docs/cli-and-emulator.md'), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('| `agent-bridge '))
  .map((line) => line.slice('| `'.length, line.indexOf('`', 3)));

describe('the command table in docs/cli-and-emulator.md', () => {
  it('finds the commands and the rows it compares', () => {
    expect(commands).toEqual(expect.arrayContaining(['serve', 'runs list', 'schedules resume', 'config check', 'secrets rotate']));
    expect(rows.length).toBeGreaterThanOrEqual(commands.length);
  });

  it.each(commands)('has a row for agent-bridge %s', (command) => {
    expect(rows.filter((row) => row === `agent-bridge ${command}` || row.startsWith(`agent-bridge ${command} `))).toHaveLength(1);
  });

  it('has no row for a command --help does not offer', () => {
    const named = rows.map((row) =>
      row
        .slice('agent-bridge '.length)
        .split(' ')
        .filter((word) => /^[a-z][a-z-]*$/.test(word)),
    );
    const unknown = named.filter((words) => !commands.some((command) => words.slice(0, command.split(' ').length).join(' ') === command));
    expect(unknown).toEqual([]);
  });
});

describe("the README's terminal commands", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const shell = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) => (block[1] ?? '').split('\n'));

  it('never use npx agent-bridge: in a clone npm first copies and rebuilds the whole clone, silently', () => {
    expect(shell.filter((line) => line.includes('npx agent-bridge'))).toEqual([]);
  });

  it('run the built command line, node dist/cli.js, with commands it has', () => {
    const invoked = shell.flatMap((line) => [...line.matchAll(/node dist\/cli\.js ([a-z-]+)/g)].map((match) => match[1] ?? ''));
    expect(invoked.length).toBeGreaterThan(0);
    const tops = new Set(commands.map((command) => command.split(' ')[0]));
    expect(invoked.filter((command) => !tops.has(command))).toEqual([]);
  });
});
