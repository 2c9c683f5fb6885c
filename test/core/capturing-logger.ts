import type { Logger } from '../../src/core/ports/logger.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One captured log line: its level, fields (child bindings merged in) and message. */
export interface LogLine {
  level: LogLevel;
  fields: Record<string, unknown>;
  msg: string | undefined;
}

/** A `Logger` double that keeps every line; children write to the same list with their bindings. */
export class CapturingLogger implements Logger {
  constructor(
    readonly lines: LogLine[] = [],
    private readonly bindings: Record<string, unknown> = {},
  ) {}

  debug(fields: object, msg?: string): void {
    this.write('debug', fields, msg);
  }
  info(fields: object, msg?: string): void {
    this.write('info', fields, msg);
  }
  warn(fields: object, msg?: string): void {
    this.write('warn', fields, msg);
  }
  error(fields: object, msg?: string): void {
    this.write('error', fields, msg);
  }
  child(bindings: object): Logger {
    return new CapturingLogger(this.lines, { ...this.bindings, ...bindings });
  }

  /** Lines at one level. */
  at(level: LogLevel): LogLine[] {
    return this.lines.filter((line) => line.level === level);
  }

  private write(level: LogLevel, fields: object, msg: string | undefined): void {
    this.lines.push({ level, fields: { ...this.bindings, ...(fields as Record<string, unknown>) }, msg });
  }
}
