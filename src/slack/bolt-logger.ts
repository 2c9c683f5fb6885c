import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../core/ports/logger.js';
import { redactEmailAddresses } from '../core/scrub.js';
import { redactSecrets } from './slack-errors.js';

/**
 * Bolt's (and the Web API client's) logger interface on top of ours, so their lines are JSON and
 * levelled like ours. `scrub` takes the Slack secrets out of each line first: the client logs whole
 * request and response bodies at debug level, and a body may quote a token back. Email addresses go
 * too: `users.lookupByEmail` sends one and `users.info` answers with one (docs/people.md). The lines
 * carry the component of the logger given (`slack`, `slack-web-api`) and add none: a second
 * `component` would make the key appear twice in one JSON line.
 */
export function boltLogger(logger: Logger, scrub: (text: string) => string = (text) => text): BoltLogger {
  let level = LogLevel.INFO;
  const text = (parts: unknown[]) =>
    redactEmailAddresses(
      redactSecrets(scrub(parts.map((part) => (part instanceof Error ? part.message : typeof part === 'string' ? part : JSON.stringify(part))).join(' '))),
    );
  return {
    // The Web API client builds a debug line of every request and answer whatever the level: scrubbing
    // them for nothing cost ~3% of the CPU of a worked mention (docs/benchmarks.md).
    debug: (...parts: unknown[]) => {
      if (logger.isLevelEnabled?.('debug') !== false) logger.debug({}, text(parts));
    },
    info: (...parts: unknown[]) => logger.info({}, text(parts)),
    warn: (...parts: unknown[]) => logger.warn({}, text(parts)),
    error: (...parts: unknown[]) => logger.error({}, text(parts)),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
