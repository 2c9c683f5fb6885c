/**
 * Known, distinctive secret values for the stress suites, and a scanner that looks
 * for them everywhere the service speaks — every log line (the raw fields handed to the logger AND
 * the real pino output after redaction), every Slack Web API call, every Linear GraphQL call, every
 * run the run API received, every HTTP answer. Each suite ends with `scanner.assertClean()`.
 */
import { inspect } from 'node:util';
import { expect } from 'vitest';
import type { Logger } from '../../src/core/ports/logger.js';
import type { RunEngine } from '../../src/emulator/index.js';
import { createLogger } from '../../src/log/create-logger.js';
import type { FakeLinearApi } from '../fakes/linear-api.js';
import type { FakeSlackApi } from '../fakes/slack-api.js';
import type { CapturingLogger } from '../core/capturing-logger.js';

/** The five secrets the service holds, each a distinctive string that appears nowhere else. */
export const SECRETS = {
  SLACK_BOT_TOKEN: 'xoxb-7431-5512-SEKRIT-slackbot-Qz81LmT4',
  SLACK_SIGNING_SECRET: 'sgn-SEKRIT-signing-9f2Xc7VbW3',
  LINEAR_API_KEY: 'lin_api_SEKRIT_linearkey_4Hw9TqZ2',
  LINEAR_WEBHOOK_SECRET: 'lwh-SEKRIT-webhook-Jn62PdK8',
  AGENT_API_KEY: 'agk-SEKRIT-runapikey-Ux37ReY5',
} as const;

export type SecretName = keyof typeof SECRETS;

/** The environment of a bridge with Slack over HTTP and Linear, both pointed at the fakes, with the secrets above. */
export function secretEnv(slackApiUrl: string, linearApiUrl: string): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: SECRETS.SLACK_BOT_TOKEN,
    SLACK_SIGNING_SECRET: SECRETS.SLACK_SIGNING_SECRET,
    SLACK_API_URL: slackApiUrl,
    LINEAR_API_KEY: SECRETS.LINEAR_API_KEY,
    LINEAR_WEBHOOK_SECRET: SECRETS.LINEAR_WEBHOOK_SECRET,
    LINEAR_API_URL: linearApiUrl,
  };
}

interface Needle {
  /** A name of `SECRETS`, or of a credential minted while the service runs (`SecretScanner.watch`). */
  secret: string;
  form: string;
  needle: string;
}

/**
 * What we look for: each whole value, its distinctive tail (a secret cut short is still a leak), and
 * its base64 and URL-encoded forms (a Basic header or a query string).
 */
function needlesOf(values: ReadonlyArray<[string, string]> = Object.entries(SECRETS)): Needle[] {
  const needles: Needle[] = [];
  for (const [secret, value] of values) {
    needles.push({ secret, form: 'value', needle: value });
    needles.push({ secret, form: 'tail', needle: value.slice(-14) });
    needles.push({ secret, form: 'base64', needle: Buffer.from(value).toString('base64').slice(0, 24) });
    const encoded = encodeURIComponent(value);
    if (encoded !== value) needles.push({ secret, form: 'url-encoded', needle: encoded });
  }
  return needles;
}

export interface Leak {
  where: string;
  secret: string;
  form: string;
  /** The text around the find, with every secret masked. */
  excerpt: string;
}

const MAX_LEAKS = 40;

/** Serialises anything a logger or a fake may hold, so a secret anywhere inside becomes findable text. */
export function serialise(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    const seen = new WeakSet<object>();
    return (
      JSON.stringify(value, function replacer(this: Record<string, unknown>, key: string, current: unknown) {
        const original = key === '' ? value : this[key];
        if (Buffer.isBuffer(original)) return original.toString('utf8');
        if (original instanceof Error) {
          if (seen.has(original)) return '[seen]';
          seen.add(original);
          // Message, stack and cause are not enumerable: JSON would drop them; a log serializer would not.
          const own: Record<string, unknown> = {};
          for (const name of Object.getOwnPropertyNames(original)) own[name] = (original as unknown as Record<string, unknown>)[name];
          return { name: original.name, message: original.message, stack: original.stack, cause: original.cause, ...own };
        }
        if (typeof current === 'bigint') return String(current);
        if (current instanceof Map) return [...current.entries()];
        if (current instanceof Set) return [...(current as Set<unknown>).values()];
        if (typeof current === 'object' && current !== null) {
          if (seen.has(current)) return '[seen]';
          seen.add(current);
        }
        return current;
      }) ?? String(value)
    );
  } catch {
    // Too deep or exotic for JSON: inspect still shows it (bounded depth).
    return inspect(value, { depth: 12, maxStringLength: null, maxArrayLength: 500, breakLength: Infinity, compact: true });
  }
}

/**
 * Looks for the secrets in everything it is shown; keeps counts and the first leaks, never the texts —
 * unless told to (`keepTexts`), for credentials known only later (`watch`).
 */
export class SecretScanner {
  readonly needles = needlesOf();
  /** Items scanned, by place. */
  readonly scanned = new Map<string, number>();
  readonly leaks: Leak[] = [];
  private leakCount = 0;
  private readonly kept: Array<{ where: string; text: string }> | undefined;

  constructor(options: { keepTexts?: boolean } = {}) {
    this.kept = options.keepTexts ? [] : undefined;
  }

  /**
   * Looks for `value` too, as `secret`: a credential the service minted (a JWT, an installation
   * token), which no configured list holds. With `keepTexts`, what was scanned before is searched for it.
   */
  watch(secret: string, value: string): void {
    if (value.length < 16 || this.needles.some((known) => known.needle === value)) return;
    const added = needlesOf([[secret, value]]);
    this.needles.push(...added);
    for (const { where, text } of this.kept ?? []) this.find(where, text, added);
  }

  scan(where: string, text: string | undefined): void {
    this.scanned.set(where, (this.scanned.get(where) ?? 0) + 1);
    if (!text) return;
    this.kept?.push({ where, text });
    this.find(where, text, this.needles);
  }

  private find(where: string, text: string, needles: readonly Needle[]): void {
    for (const { secret, form, needle } of needles) {
      const at = text.indexOf(needle);
      if (at === -1) continue;
      this.leakCount += 1;
      if (this.leaks.length < MAX_LEAKS)
        this.leaks.push({ where, secret, form, excerpt: mask(text.slice(Math.max(0, at - 160), at + needle.length + 160), this.needles) });
    }
  }

  scanValue(where: string, value: unknown): void {
    this.scan(where, serialise(value));
  }

  /** Every call the fake Slack Web API recorded: its arguments (the token header is Slack's business, not a message). */
  scanSlack(slack: FakeSlackApi): void {
    for (const call of slack.calls) this.scanValue('slack call args', { method: call.method, args: call.args });
  }

  /** Every GraphQL call the fake Linear API recorded: its variables (comment bodies, ids). */
  scanLinear(linear: FakeLinearApi): void {
    for (const call of linear.calls)
      this.scanValue(call.operation.startsWith('AgentBridge') ? 'linear query variables' : 'linear mutation variables', call.variables);
    for (const comment of linear.comments()) this.scan('linear comment body', comment.body);
  }

  /** Every run the run API holds: prompt, title, config, follow-ups. */
  scanRuns(engine: RunEngine): void {
    for (const run of engine.list({ limit: 1_000_000 }).runs) {
      this.scanValue('run (prompt, title, config)', run);
      this.scanValue('run follow-ups', engine.followups(run.run_id));
    }
  }

  get total(): number {
    return [...this.scanned.values()].reduce((sum, count) => sum + count, 0);
  }

  /** One line for the suite summary. */
  summary(): string {
    const parts = [...this.scanned.entries()].map(([where, count]) => `${where} ${count}`);
    return `secrets scanned in ${this.total} items (${parts.join(', ')}): ${this.leakCount} leak(s)`;
  }

  assertClean(): void {
    expect(
      this.leaks,
      `secrets found (${this.leakCount} in all):\n${this.leaks.map((leak) => `  ${leak.secret} (${leak.form}) in ${leak.where}: …${leak.excerpt}…`).join('\n')}`,
    ).toEqual([]);
  }
}

/** Replaces every secret (and its forms) in a text, so a failure report does not print them. */
export function mask(text: string, needles: readonly Needle[] = needlesOf()): string {
  let masked = text;
  for (const { secret, needle } of needles) masked = masked.split(needle).join(`<${secret}>`);
  return masked;
}

/**
 * A Logger for `startBridge` that sends every line three ways: to the scanner as the raw fields the
 * code passed (before any redaction: a secret handed to the logger at all is a finding), through the
 * service's real pino logger (`createLogger` with its redaction, at debug level) whose output lines the
 * scanner also reads, and, when given, to a CapturingLogger so a test can look at the lines.
 */
export function scanningLogger(scanner: SecretScanner, keep?: CapturingLogger): Logger {
  const pino = createLogger({
    level: 'debug',
    secrets: Object.values(SECRETS),
    pretty: false,
    destination: { write: (line: string) => scanner.scan('log line (pino output)', line) },
  });
  return new TeeLogger(scanner, pino, keep, {});
}

class TeeLogger implements Logger {
  constructor(
    private readonly scanner: SecretScanner,
    private readonly pino: Logger,
    private readonly keep: Logger | undefined,
    private readonly bindings: Record<string, unknown>,
  ) {}

  debug(fields: object, message?: string): void {
    this.write('debug', fields, message);
  }
  info(fields: object, message?: string): void {
    this.write('info', fields, message);
  }
  warn(fields: object, message?: string): void {
    this.write('warn', fields, message);
  }
  error(fields: object, message?: string): void {
    this.write('error', fields, message);
  }
  child(bindings: object): Logger {
    return new TeeLogger(this.scanner, this.pino.child(bindings), this.keep?.child(bindings), { ...this.bindings, ...(bindings as Record<string, unknown>) });
  }

  private write(level: 'debug' | 'info' | 'warn' | 'error', fields: object, message: string | undefined): void {
    this.scanner.scanValue('log line (raw fields)', { ...this.bindings, fields, message });
    this.pino[level](fields, message);
    this.keep?.[level](fields, message);
  }
}

/**
 * Lines written straight to the console (debug/info/warn/error) instead of through the service's
 * logger: they bypass its JSON format and its redaction. Each is scanned and kept; `restore()` puts
 * the console back. (Our own summaries use console.log, which is left alone.)
 */
export function captureConsole(scanner: SecretScanner): { lines: string[]; restore(): void } {
  const lines: string[] = [];
  const methods = ['debug', 'info', 'warn', 'error'] as const;
  const originals = methods.map((method) => console[method].bind(console));
  for (const method of methods) {
    console[method] = (...parts: unknown[]) => {
      const line = parts.map((part) => (typeof part === 'string' ? part : serialise(part))).join(' ');
      lines.push(line);
      scanner.scan('console line (bypassing the logger)', line);
    };
  }
  return {
    lines,
    restore: () => methods.forEach((method, index) => (console[method] = originals[index]!)),
  };
}

/**
 * Ends a file's console capture: puts the console back, then prints `[label]` with the scanner's
 * summary and how many console lines bypassed the logger (the first of them, cut short).
 */
export function endConsoleCapture(label: string, scanner: SecretScanner, stray: { lines: string[]; restore(): void }): void {
  stray.restore();
  console.log(
    `[${label}] ${scanner.summary()}; console lines bypassing the logger: ${stray.lines.length}${stray.lines.length > 0 ? ` (first: ${JSON.stringify(stray.lines[0]!.slice(0, 120))})` : ''}`,
  );
}
