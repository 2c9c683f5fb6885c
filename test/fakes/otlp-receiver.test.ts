import { afterEach, describe, expect, it } from 'vitest';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { startOtlpReceiver, type FakeOtlpReceiver } from './otlp-receiver.js';

let receiver: FakeOtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('the fake OTLP/HTTP receiver', () => {
  it('decodes what the real exporter sends: names, ids, parents, kinds, attributes, events, links, status, resource and headers', async () => {
    receiver = await startOtlpReceiver();
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'receiver-test' }),
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${receiver.endpoint}/v1/traces`, headers: { 'x-api-key': 'k-123' } }))],
    });
    const tracer = provider.getTracer('test');
    const other = tracer.startSpan('other');
    other.end();
    const parent = tracer.startSpan('parent', { kind: SpanKind.SERVER, attributes: { who: 'U1', count: 3, yes: true } });
    const { trace, context } = await import('@opentelemetry/api');
    const child = tracer.startSpan('child', { kind: SpanKind.CLIENT, links: [{ context: other.spanContext() }] }, trace.setSpan(context.active(), parent));
    child.addEvent('retry', { attempt: 1 });
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'no' });
    child.end();
    parent.end();
    await provider.forceFlush();

    const spans = await receiver.waitFor((all) => (all.length >= 3 ? all : undefined), 'three spans');
    const byName = Object.fromEntries(spans.map((span) => [span.name, span]));
    expect(byName['parent']).toMatchObject({ kind: 'server', attributes: { who: 'U1', count: 3, yes: true }, resource: { 'service.name': 'receiver-test' } });
    expect(byName['parent']?.parentSpanId).toBeUndefined();
    expect(byName['child']).toMatchObject({
      kind: 'client',
      traceId: byName['parent']?.traceId,
      parentSpanId: byName['parent']?.spanId,
      events: [{ name: 'retry', attributes: { attempt: 1 } }],
      links: [{ traceId: byName['other']?.traceId, spanId: byName['other']?.spanId }],
      status: { code: 'error', message: 'no' },
    });
    expect(byName['child']?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(receiver.requests()[0]?.['x-api-key']).toBe('k-123');
    await provider.shutdown();
  });

  it('fails a wait that nothing satisfies, naming what it waited for', async () => {
    receiver = await startOtlpReceiver();
    await expect(receiver.waitFor(() => undefined, 'span named never', 50)).rejects.toThrow(/no span named never/);
  });
});
