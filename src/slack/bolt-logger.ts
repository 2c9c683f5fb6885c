import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../core/logger.js';

/** Bolt's logger interface on top of ours, so Bolt's lines are JSON, scrubbed and levelled like ours. */
export function boltLogger(logger: Logger): BoltLogger {
  let level = LogLevel.INFO;
  const text = (parts: unknown[]) => parts.map((part) => (part instanceof Error ? part.message : typeof part === 'string' ? part : JSON.stringify(part))).join(' ');
  return {
    debug: (...parts: unknown[]) => logger.debug({ component: 'bolt' }, text(parts)),
    info: (...parts: unknown[]) => logger.info({ component: 'bolt' }, text(parts)),
    warn: (...parts: unknown[]) => logger.warn({ component: 'bolt' }, text(parts)),
    error: (...parts: unknown[]) => logger.error({ component: 'bolt' }, text(parts)),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
