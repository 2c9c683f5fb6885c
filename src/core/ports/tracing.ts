/**
 * The tracing port: what the core asks of distributed tracing, so it can make spans without importing
 * OpenTelemetry. Trace contexts cross the store as W3C `traceparent` strings. Off (the default) is
 * `noTracing`: every call runs its work at once and allocates nothing, so a service without
 * `OTEL_EXPORTER_OTLP_ENDPOINT` pays nothing for it (docs/observability.md).
 */
export type SpanKind = 'internal' | 'server' | 'client' | 'producer' | 'consumer';

export type SpanAttributeValue = string | number | boolean;

/** Ids, names and counts only: never a person's words (a prompt, a message) nor a secret. */
export type SpanAttributes = Readonly<Record<string, SpanAttributeValue | undefined>>;

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: SpanAttributes;
  /** The span's parent, as a W3C `traceparent`; unset: the active span, if any. */
  parent?: string | null;
  /** Traces this span belongs with but is not a child of (a retry's first request, a run's trace). */
  links?: ReadonlyArray<string | null | undefined>;
  /** Starts a trace of its own even while a span is active (a schedule's slot, an outbox delivery). */
  root?: boolean;
}

/** One span while its work runs. */
export interface TraceSpan {
  setAttribute(name: string, value: SpanAttributeValue): void;
  /** Something that happened within the span (a retry, with its attempt and delay). */
  addEvent(name: string, attributes?: SpanAttributes): void;
  /** Links a trace this span belongs with (a redelivery's first request), known only once it runs. */
  addLink(traceparent: string | null | undefined): void;
  /** Marks the span failed: status ERROR, and `error.type` our stable error code. */
  fail(code: string, message?: string): void;
  /** This span as a W3C `traceparent`, to store with what it caused; undefined while tracing is off. */
  readonly traceparent: string | undefined;
}

export interface Tracing {
  /** Whether spans are recorded at all: callers skip building attributes when not. */
  readonly on: boolean;
  /**
   * Runs `work` inside a new span, active for everything it calls, and ends it when `work` settles. A
   * throw marks the span failed with the error's stable `code` (or its name) and is thrown on.
   */
  inSpan<T>(name: string, options: SpanOptions, work: (span: TraceSpan) => Promise<T>): Promise<T>;
  /** As `inSpan`, for synchronous work (a SQLite transaction). */
  inSpanSync<T>(name: string, options: SpanOptions, work: (span: TraceSpan) => T): T;
  /** The active span (a span that records nothing when none is). */
  active(): TraceSpan;
}

/** A span that records nothing. */
export const noSpan: TraceSpan = {
  setAttribute: () => {},
  addEvent: () => {},
  addLink: () => {},
  fail: () => {},
  traceparent: undefined,
};

/** Tracing off: the work runs as it is. */
export const noTracing: Tracing = {
  on: false,
  inSpan: (_name, _options, work) => work(noSpan),
  inSpanSync: (_name, _options, work) => work(noSpan),
  active: () => noSpan,
};

let installed: Tracing = noTracing;

/**
 * The process's tracing: `noTracing` unless the service turned it on at start. One per process, as
 * OpenTelemetry's own provider is: the instrumentations it loads patch the process's modules.
 */
export function tracing(): Tracing {
  return installed;
}

/** Installs the process's tracing (the composition, once, before anything is traced); tests put `noTracing` back. */
export function installTracing(next: Tracing): void {
  installed = next;
}

/** The stable code of an error for `error.type`: its `code` when it has a text one, else its name. */
export function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    if (error instanceof Error) return error.name;
  }
  return 'internal_error';
}
