/**
 * Turns tracing on: OpenTelemetry's Node SDK (the 2.x line, which runs on Node 20), spans exported in
 * batches over OTLP/HTTP (JSON) to the configured collector, and the instrumentations of `http`,
 * `undici` and `pg`. Loaded by `import()` only when `OTEL_EXPORTER_OTLP_ENDPOINT` (or the traces one)
 * is set, and before the service's own modules, so the instrumentations see them load.
 */
import { register as registerLoaderHook } from 'node:module';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-node';
import type { TracingConfig } from '../config-kit/service-config.js';
import type { Tracing } from '../core/ports/tracing.js';
import { packageVersion } from '../host/version.js';
import { OtelTracing, traceLogFields } from './otel-tracing.js';

export interface StartedTracing {
  tracing: Tracing;
  /** pino's `mixin`: the active span's ids on every line written inside it. */
  logFields: () => object;
  /** Exports what is still buffered, then stops exporting. */
  shutdown(): Promise<void>;
}

/** `OTEL_TRACES_SAMPLER` and its ratio, as the specification defines them. */
function samplerOf(config: TracingConfig): Sampler {
  const ratio = new TraceIdRatioBasedSampler(config.samplerRatio ?? 1);
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/**
 * Starts the SDK and the instrumentations. Outgoing calls are traced only inside one of our spans (a
 * tracker's poll alone is no trace of its own), and incoming requests are left to our edges: they
 * make the request's span themselves, honouring a sender's `traceparent` only as a link.
 */
export function startTracing(config: TracingConfig): StartedTracing {
  // ESM imports of `pg` and `node:http` are seen only through this hook (CommonJS requires without it).
  registerLoaderHook('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: ['pg', 'http', 'https', 'node:http', 'node:https'] } });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ ...config.resourceAttributes, 'service.name': config.serviceName, 'service.version': packageVersion() }),
    sampler: samplerOf(config),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: config.url, headers: { ...config.headers } }), {
        ...(config.scheduleDelayMs !== undefined && { scheduledDelayMillis: config.scheduleDelayMs }),
      }),
    ],
  });
  provider.register();
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: () => true, requireParentforOutgoingSpans: true }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  return {
    tracing: new OtelTracing(provider.getTracer('agent-bridge', packageVersion())),
    logFields: traceLogFields,
    shutdown: async () => {
      unregister();
      await provider.shutdown();
    },
  };
}
