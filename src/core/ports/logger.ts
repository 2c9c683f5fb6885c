/**
 * The logging port: the subset of pino's API the core uses, so the core can log without importing
 * pino. Structured fields first, then the message, as pino expects.
 */
export interface Logger {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
  child(bindings: object): Logger;
  /**
   * Whether lines of `level` are written (pino's own). Optional: a caller that would spend work only
   * to build a line (a library's debug output) asks first; absent means "assume yes".
   */
  isLevelEnabled?(level: 'debug' | 'info' | 'warn' | 'error'): boolean;
}

/** A logger that drops everything (tests, library use). */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
