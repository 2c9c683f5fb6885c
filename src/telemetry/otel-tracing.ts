/**
 * The core's `Tracing` port over OpenTelemetry's API: spans made active for the work they wrap (so the
 * http, undici and pg instrumentations' spans become their children), and trace contexts read from and
 * written as W3C `traceparent` strings for the store.
 */
import {
  context,
  ROOT_CONTEXT,
  SpanKind as OtelKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import { ATTR } from '../core/ports/trace-names.js';
import { errorType, noSpan, type SpanAttributes, type SpanKind, type SpanOptions, type TraceSpan, type Tracing } from '../core/ports/tracing.js';

const KINDS: Record<SpanKind, OtelKind> = {
  internal: OtelKind.INTERNAL,
  server: OtelKind.SERVER,
  client: OtelKind.CLIENT,
  producer: OtelKind.PRODUCER,
  consumer: OtelKind.CONSUMER,
};

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A W3C `traceparent`'s span context; undefined for anything else (an all-zero id, version ff, junk). */
export function parseTraceparent(text: string | null | undefined): SpanContext | undefined {
  if (!text) return undefined;
  const match = TRACEPARENT.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  const [, version, traceId = '', spanId = '', flags = '00'] = match;
  if (version === 'ff' || /^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: parseInt(flags, 16) & 1, isRemote: true };
}

/** A span context as a W3C `traceparent`. */
export function formatTraceparent(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 1).toString(16).padStart(2, '0')}`;
}

function attributesOf(attributes: SpanAttributes | undefined): Attributes | undefined {
  if (!attributes) return undefined;
  const kept: Attributes = {};
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) kept[name] = value;
  return kept;
}

/** Our span over OpenTelemetry's. */
class OtelSpan implements TraceSpan {
  constructor(readonly span: Span) {}

  setAttribute(name: string, value: string | number | boolean): void {
    this.span.setAttribute(name, value);
  }

  addEvent(name: string, attributes?: SpanAttributes): void {
    this.span.addEvent(name, attributesOf(attributes));
  }

  addLink(traceparent: string | null | undefined): void {
    const linked = parseTraceparent(traceparent);
    if (linked) this.span.addLink({ context: linked });
  }

  fail(code: string, message?: string): void {
    this.span.setAttribute(ATTR.errorType, code);
    this.span.setStatus({ code: SpanStatusCode.ERROR, ...(message !== undefined && { message }) });
  }

  get traceparent(): string | undefined {
    const spanContext = this.span.spanContext();
    return trace.isSpanContextValid(spanContext) ? formatTraceparent(spanContext) : undefined;
  }
}

/** Tracing on: spans of `tracer`. */
export class OtelTracing implements Tracing {
  readonly on = true;

  constructor(private readonly tracer: Tracer) {}

  async inSpan<T>(name: string, options: SpanOptions, work: (span: TraceSpan) => Promise<T>): Promise<T> {
    const { span, active } = this.start(name, options);
    const ours = new OtelSpan(span);
    try {
      return await context.with(active, () => work(ours));
    } catch (error) {
      ours.fail(errorType(error), error instanceof Error ? error.message : undefined);
      throw error;
    } finally {
      span.end();
    }
  }

  inSpanSync<T>(name: string, options: SpanOptions, work: (span: TraceSpan) => T): T {
    const { span, active } = this.start(name, options);
    const ours = new OtelSpan(span);
    try {
      return context.with(active, () => work(ours));
    } catch (error) {
      ours.fail(errorType(error), error instanceof Error ? error.message : undefined);
      throw error;
    } finally {
      span.end();
    }
  }

  active(): TraceSpan {
    const span = trace.getActiveSpan();
    return span ? new OtelSpan(span) : noSpan;
  }

  private start(name: string, options: SpanOptions): { span: Span; active: Context } {
    const parent = parseTraceparent(options.parent);
    const base = parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : options.root || options.parent === null ? ROOT_CONTEXT : context.active();
    const links: Link[] = [];
    for (const link of options.links ?? []) {
      const linked = parseTraceparent(link);
      if (linked) links.push({ context: linked });
    }
    const span = this.tracer.startSpan(
      name,
      { kind: KINDS[options.kind ?? 'internal'], ...(options.attributes && { attributes: attributesOf(options.attributes) }), links },
      base,
    );
    return { span, active: trace.setSpan(base, span) };
  }
}

/** `trace_id` and `span_id` of the active span, for a log line written inside it (pino's `mixin`). */
export function traceLogFields(): object {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
