import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { parseDuration } from '../config-kit/duration.js';
import type { CliContext } from './context.js';
import { UsageError } from './exit-codes.js';

interface EmulatorFlags {
  port: string;
  host: string;
  apiKey?: string;
  manual?: boolean;
  visibility: string;
  step: string;
  work: string;
}

function durationFlag(flag: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new UsageError(`${flag}: expected a duration such as 300ms, 2s or 1m, got "${text}"`);
  return ms;
}

export function registerEmulatorCommand(program: Command, context: CliContext, onShutdown: (stop: () => Promise<void>) => void): void {
  program
    .command('emulator')
    .description('run a local Cloud Agent Run API for development, demos and tests')
    .option('--port <port>', 'port to listen on (0 = any free port)', '4010')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--api-key <key>', 'bearer key clients must send (default: AGENT_API_KEY, else a random one that is printed)')
    .option('--manual', 'runs change state only when driven through /_emulator/runs/{id}/state')
    .option('--visibility <mode>', 'owner: a key sees only the runs it created (and any key is accepted); team: every key sees every run', 'team')
    .option('--step <duration>', 'time in each of QUEUED, PENDING and CLAIMED', '300ms')
    .option('--work <duration>', 'time a run spends INPROGRESS', '2s')
    .action(async (flags: EmulatorFlags) => {
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port: expected 0–65535, got "${flags.port}"`);
      const step = durationFlag('--step', flags.step);
      const work = durationFlag('--work', flags.work);
      if (flags.visibility !== 'owner' && flags.visibility !== 'team') throw new UsageError(`--visibility: expected owner or team, got "${flags.visibility}"`);
      const visibility = flags.visibility;
      const givenKey = flags.apiKey ?? context.env['AGENT_API_KEY'];
      const apiKey = givenKey ?? randomBytes(12).toString('hex');
      const { startEmulator } = await import('../emulator/index.js');
      const emulator = await startEmulator({
        apiKey,
        port,
        host: flags.host,
        manual: flags.manual === true,
        visibility,
        timings: { queuedMs: step, pendingMs: step, claimedMs: step, workMs: work },
      });
      context.out(`Run API emulator listening on ${emulator.baseUrl}`);
      if (visibility === 'owner') context.out('Visibility: owner — each key sees only the runs it created; any key is accepted until revoked');
      // A key the user chose is theirs and is not echoed; a generated one must be shown to be usable.
      if (givenKey === undefined) context.out(`API key (generated): ${apiKey}`);
      context.out(
        `Use it with: AGENT_API_BASE_URL=${emulator.baseUrl} AGENT_API_KEY=${givenKey === undefined ? apiKey : '<your key>'} agent-bridge run "hello" --wait`,
      );
      context.out(`Runs and sessions: ${emulator.url}/   (Ctrl-C stops)`);
      onShutdown(() => emulator.close());
    });
}
