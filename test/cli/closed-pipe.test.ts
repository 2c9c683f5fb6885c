import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/spawn-cli.js';

/*
 * `agent-bridge config check | head -1`: the reader closes the pipe before the command is done. The
 * command must end quietly with 0, not die of an unhandled EPIPE with a stack trace. The reader here
 * closes its end before the child writes anything, so every write of the child meets a closed pipe
 * (what `head` does to the lines after the first), whatever the machine's speed.
 */

/** Runs the CLI with its stdout (or stderr) read by nobody; resolves with the exit code and the other stream. */
function withClosedReader(args: string[], closed: 'stdout' | 'stderr', env: Record<string, string> = {}) {
  const child = spawnCli(args, { env });
  child[closed]?.destroy();
  const other = closed === 'stdout' ? child.stderr : child.stdout;
  let said = '';
  other?.on('data', (chunk: Buffer) => (said += chunk.toString()));
  return new Promise<{ code: number | null; said: string }>((resolve) => child.once('close', (code) => resolve({ code, said })));
}

describe('output cut by a closed pipe', () => {
  it.each([
    ['config check', ['config', 'check', '--offline']],
    ['--help', ['--help']],
  ])('%s | head: ends with 0 and says nothing of EPIPE', async (_name, args) => {
    const { code, said } = await withClosedReader(args, 'stdout');
    expect(said).toBe('');
    expect(code).toBe(0);
  });

  it('a closed stderr keeps the command’s own exit code (a usage error is still 2)', async () => {
    const { code, said } = await withClosedReader(['runs', 'list'], 'stderr');
    expect(said).toBe('');
    expect(code).toBe(2);
  });
});
