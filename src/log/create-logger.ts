import { hostname } from 'node:os';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from '../config-kit/value-sets.js';
import { secretScrubber } from '../core/scrub.js';
import { redactCredentialShapes } from './credential-shapes.js';

export interface LoggerOptions {
  level: LogLevel;
  /** Every value here is replaced by `[redacted]` wherever it would appear in a log line. */
  secrets: ReadonlyArray<string | undefined>;
  /** Credentials minted while the service runs, by their shape (the surfaces' `credentialShapes`): replaced wherever they appear, as secrets are. */
  credentialShapes?: readonly RegExp[];
  /** Human-readable lines (pino-pretty) instead of JSON; default: when stdout is a terminal. */
  pretty?: boolean;
  /** Fields added to every line as it is written (tracing on: the active span's `trace_id` and `span_id`). */
  mixin?: () => object;
  /** Where lines go (tests); default stdout. */
  destination?: DestinationStream;
}

/** Field names that hold secrets in any object we might log. */
const REDACT_PATHS = [
  'apiKey',
  '*.apiKey',
  'botToken',
  '*.botToken',
  'signingSecret',
  '*.signingSecret',
  'appToken',
  '*.appToken',
  'accessToken',
  '*.accessToken',
  'webhookSecret',
  '*.webhookSecret',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
];

/**
 * The replica that wrote a line, on every line (children inherit it): with several replicas sharing
 * one database, their logs meet in one place. pino's own field names, which log shippers know.
 */
export function replicaBindings(): { pid: number; hostname: string } {
  return { pid: process.pid, hostname: hostname() };
}

/**
 * The service's logger. Secrets are kept out twice over: known field names are redacted, and every
 * finished line is scrubbed of the configured secret values and of credentials minted while the
 * service runs (a JWT, a GitHub installation token: known by their shape), so a secret that slipped
 * into an error message or a URL still never reaches the log. Every line names its replica (`hostname`, `pid`).
 */
export function createLogger(options: LoggerOptions): PinoLogger {
  // Lines are scrubbed once written as JSON, where a secret holding a line break, a quote or a backslash
  // (the GitHub App's PEM key) appears escaped: both spellings are looked for.
  const secrets = options.secrets.flatMap((secret) => (secret === undefined ? [] : [secret, JSON.stringify(secret).slice(1, -1)]));
  const configured = secretScrubber([...new Set(secrets)]);
  const shapes = options.credentialShapes ?? [];
  const scrub = (line: string) => redactCredentialShapes(configured(line), shapes);
  const pretty = options.pretty ?? (process.stdout.isTTY === true && options.destination === undefined);
  const base = {
    level: options.level,
    base: replicaBindings(),
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    hooks: { streamWrite: scrub },
    ...(options.mixin && { mixin: options.mixin }),
  };
  if (options.destination) return pino(base, options.destination);
  if (pretty) {
    // A terminal shows one host: its pid alone tells apart two replicas started from it.
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'hostname' } } });
  }
  return pino(base);
}
