import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createLogger } from './create-logger.js';

function captured(secrets: string[] = []) {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: 'debug',
    secrets,
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}

describe('createLogger', () => {
  it('names the replica (hostname and pid) on every line, children and every level included', () => {
    const { logger, lines } = captured();
    logger.debug('a');
    logger.info({ url: 'http://127.0.0.1:1' }, 'b');
    logger.child({ component: 'tracker' }).warn('c');
    logger
      .child({ component: 'outbox' })
      .child({ worker: 3 })
      .error({ err: new Error('boom') }, 'd');

    expect(lines.map((line) => line['msg'])).toEqual(['a', 'b', 'c', 'd']);
    for (const line of lines) expect(line).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(lines[2]).toMatchObject({ component: 'tracker' });
  });

  it('still keeps the configured secrets out of the line that carries the replica', () => {
    const secret = 'xoxb-secret-token-0123456789';
    const { logger, lines } = captured([secret]);
    logger.info({ botToken: secret, note: `token ${secret}` }, `said ${secret}`);
    expect(JSON.stringify(lines)).not.toContain(secret);
    expect(lines[0]).toMatchObject({ pid: process.pid, hostname: hostname(), botToken: '[redacted]', msg: 'said [redacted]' });
  });
});
