import { AsyncLocalStorage } from 'node:async_hooks';
import { noSpan, type SpanAttributeValue, type SpanAttributes, type SpanOptions, type TraceSpan, type Tracing } from '../../src/core/ports/tracing.js';

/** One span the recording tracing made: what it was started with and what happened to it. */
export interface RecordedSpan {
  name: string;
  options: SpanOptions;
  /** Its own context, as the store keeps it: `tp-<n>`. */
  traceparent: string;
  attributes: Record<string, SpanAttributeValue>;
  events: Array<{ name: string; attributes?: SpanAttributes }>;
  links: string[];
  failed?: string;
}

/**
 * A `Tracing` for the core's tests, without OpenTelemetry: it records every span with its options,
 * attributes, events, links and failure, and keeps the active span across awaits as the adapter does.
 */
export class RecordingTracing implements Tracing {
  readonly on = true;
  readonly spans: RecordedSpan[] = [];
  private readonly current = new AsyncLocalStorage<TraceSpan>();

  async inSpan<T>(name: string, options: SpanOptions, work: (span: TraceSpan) => Promise<T>): Promise<T> {
    const span = this.start(name, options);
    try {
      return await this.current.run(span, () => work(span));
    } catch (error) {
      span.fail((error as { code?: string }).code ?? 'error');
      throw error;
    }
  }

  inSpanSync<T>(name: string, options: SpanOptions, work: (span: TraceSpan) => T): T {
    const span = this.start(name, options);
    return this.current.run(span, () => work(span));
  }

  active(): TraceSpan {
    return this.current.getStore() ?? noSpan;
  }

  named(name: string): RecordedSpan[] {
    return this.spans.filter((span) => span.name === name);
  }

  private start(name: string, options: SpanOptions): TraceSpan {
    const attributes = Object.fromEntries(Object.entries(options.attributes ?? {}).filter(([, value]) => value !== undefined)) as Record<
      string,
      SpanAttributeValue
    >;
    const recorded: RecordedSpan = { name, options, traceparent: `tp-${this.spans.length + 1}`, attributes, events: [], links: [] };
    this.spans.push(recorded);
    return {
      traceparent: recorded.traceparent,
      setAttribute: (key, value) => void (recorded.attributes[key] = value),
      addEvent: (event, attributes) => void recorded.events.push({ name: event, ...(attributes && { attributes }) }),
      addLink: (link) => void (link && recorded.links.push(link)),
      fail: (code) => void (recorded.failed = code),
    };
  }
}
