/**
 * The static checks `npm test` runs before the tests: the type-check and ESLint at the same time
 * (each keeps one core busy for most of a minute, and CI machines have two), then Prettier's check.
 * Each tool's output is printed whole when it ends, so the two never interleave; any failure fails
 * the whole, naming which.
 */
import { spawn } from 'node:child_process';

/** Runs a locally installed tool, collecting its output; resolves with its exit code. */
function run(name: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`node_modules/${name}`, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('close', (code, signal) => {
      const text = Buffer.concat(output).toString();
      if (text.trim() !== '') process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const [types, lint] = await Promise.all([run('typescript/bin/tsc', ['-p', 'tsconfig.json', '--noEmit']), run('eslint/bin/eslint.js', ['.'])]);
const format = await run('prettier/bin/prettier.cjs', ['--check', '.']);
const failed = [types !== 0 && 'type-check', lint !== 0 && 'ESLint', format !== 0 && 'Prettier'].filter((name) => name !== false);
if (failed.length > 0) console.error(`static checks failed: ${failed.join(', ')}`);
process.exit(failed.length > 0 ? 1 : 0);
