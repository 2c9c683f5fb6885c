import { describe, expect, it } from 'vitest';
import { lazyChild, type Logger } from './logger.js';

/** A logger that records the children made and the lines written, with the bindings in force. */
function recording(bindings: object = {}, made: object[] = [], lines: Array<{ level: string; fields: object; message?: string }> = []) {
  const logger: Logger = {
    debug: (fields, message) => void lines.push({ level: 'debug', fields: { ...bindings, ...fields }, ...(message !== undefined && { message }) }),
    info: (fields, message) => void lines.push({ level: 'info', fields: { ...bindings, ...fields }, ...(message !== undefined && { message }) }),
    warn: (fields, message) => void lines.push({ level: 'warn', fields: { ...bindings, ...fields }, ...(message !== undefined && { message }) }),
    error: (fields, message) => void lines.push({ level: 'error', fields: { ...bindings, ...fields }, ...(message !== undefined && { message }) }),
    child: (more) => {
      made.push(more);
      return recording({ ...bindings, ...more }, made, lines).logger;
    },
    isLevelEnabled: (level) => level !== 'debug',
  };
  return { logger, made, lines };
}

describe('lazyChild', () => {
  it('makes no child while nothing is written', () => {
    const { logger, made } = recording();
    lazyChild(logger, { trigger: 'T1' });
    expect(made).toEqual([]);
  });

  it('writes every line with the bindings, making the child once', () => {
    const { logger, made, lines } = recording({ component: 'intake' });
    const log = lazyChild(logger, { trigger: 'T1' });
    log.info({ step: 'a' }, 'first');
    log.error({ step: 'b' }, 'second');
    expect(made).toEqual([{ trigger: 'T1' }]);
    expect(lines).toEqual([
      { level: 'info', fields: { component: 'intake', trigger: 'T1', step: 'a' }, message: 'first' },
      { level: 'error', fields: { component: 'intake', trigger: 'T1', step: 'b' }, message: 'second' },
    ]);
  });

  it("answers the parent's level check without making the child, and its own children carry every binding", () => {
    const { logger, made, lines } = recording();
    const log = lazyChild(logger, { trigger: 'T1' });
    expect(log.isLevelEnabled?.('debug')).toBe(false);
    expect(made).toEqual([]);
    log.child({ run: 'R1' }).warn({}, 'late');
    expect(lines).toEqual([{ level: 'warn', fields: { trigger: 'T1', run: 'R1' }, message: 'late' }]);
  });
});
