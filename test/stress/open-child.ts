/**
 * A child for test/stress/concurrent-open.test.ts: `node --import tsx open-child.ts <dir> <rounds>`.
 * Prints `ready`, waits for `go <epoch ms>` on stdin, then in round r (at that time + r × ROUND_MS, so
 * that every child opens at the same moment) opens the store on `<dir>/db-<r>.db` — a file that does
 * not exist yet — and closes it. Prints one JSON line: the errors met, by round.
 */
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openSqliteStore } from '../../src/store/sqlite-store.js';

export interface OpenReport {
  pid: number;
  errors: Array<{ round: number; error: string }>;
}

export const ROUND_MS = 30;
const [dir, roundsArg = '10'] = process.argv.slice(2);
if (!dir) {
  process.stderr.write('usage: open-child.ts <dir> [rounds]\n');
  process.exit(2);
}
const lines = createInterface({ input: process.stdin });
const go = new Promise<number>((resolve) => lines.once('line', (line) => resolve(Number(line.split(' ')[1]) || Date.now())));
process.stdout.write('ready\n');
const startAt = await go;
lines.close();
const report: OpenReport = { pid: process.pid, errors: [] };
for (let round = 0; round < Number(roundsArg); round++) {
  const at = startAt + round * ROUND_MS;
  while (at - Date.now() > 2) await new Promise((resolve) => setTimeout(resolve, 1));
  while (Date.now() < at) {
    /* spin: every child opens at the same moment */
  }
  try {
    const store = openSqliteStore({ path: join(dir, `db-${round}.db`) });
    await store.close();
  } catch (error) {
    report.errors.push({
      round,
      error:
        error instanceof Error
          ? `${error.name}: ${error.message} @ ${
              error.stack
                ?.split('\n')
                .find((line) => line.includes('src/store'))
                ?.trim() ?? ''
            }`
          : String(error),
    });
  }
}
process.stdout.write(`${JSON.stringify(report)}\n`);
