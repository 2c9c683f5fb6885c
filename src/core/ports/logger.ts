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

/**
 * `parent.child(bindings)`, made only when a line is first written through it. A pino child
 * serialises its bindings when it is made; the intake worker makes one per trigger and most triggers
 * log nothing, which cost 2% of a worked mention's CPU (docs/benchmarks.md, "CPU per worked trigger").
 */
export function lazyChild(parent: Logger, bindings: object): Logger {
  let made: Logger | undefined;
  const child = () => (made ??= parent.child(bindings));
  return {
    debug: (fields, message) => child().debug(fields, message),
    info: (fields, message) => child().info(fields, message),
    warn: (fields, message) => child().warn(fields, message),
    error: (fields, message) => child().error(fields, message),
    child: (more) => lazyChild(child(), more),
    ...(parent.isLevelEnabled && { isLevelEnabled: (level) => parent.isLevelEnabled?.(level) ?? true }),
  };
}
