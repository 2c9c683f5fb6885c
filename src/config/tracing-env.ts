/**
 * OpenTelemetry's standard variables, as far as traces go (docs/observability.md): tracing is on when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set, and off otherwise or with
 * `OTEL_SDK_DISABLED=true`. Read here, once, with the rest of the environment, so the SDK is handed
 * what was checked (a `.env` file's values included) instead of reading `process.env` itself.
 */
import { z } from 'zod';
import { fail, optionalText } from '../config-kit/env-checks.js';
import type { TracingConfig, TracingSampler } from '../config-kit/service-config.js';

export const DEFAULT_SERVICE_NAME = 'agent-bridge';

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

const endpoint = optionalText.transform((value, ctx) => {
  if (value === undefined) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail(ctx, 'is not a URL', 'set it to your collector’s OTLP/HTTP address, e.g. http://otel-collector:4318');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return fail(ctx, `must be http or https (found "${url.protocol}")`, 'OTLP/HTTP is served on port 4318 by the OpenTelemetry Collector');
  }
  return url.href;
});

/** `key=value` pairs separated by commas, values percent-encoded (the OTLP exporter's and the resource's format). */
function keyValueList(hint: string) {
  return optionalText.transform((value, ctx) => {
    if (value === undefined) return value;
    const pairs: Record<string, string> = {};
    for (const item of value.split(',')) {
      if (item.trim() === '') continue;
      const at = item.indexOf('=');
      // Never echoed: a header's value is often a token.
      if (at <= 0) return fail(ctx, 'must be key=value pairs separated by commas', hint);
      try {
        pairs[decodeURIComponent(item.slice(0, at).trim())] = decodeURIComponent(item.slice(at + 1).trim());
      } catch {
        return fail(ctx, 'holds a percent sign that starts no valid %XX escape', hint);
      }
    }
    return pairs;
  });
}

const sampler = optionalText.transform((value, ctx): TracingSampler | undefined => {
  if (value === undefined) return value;
  const lower = value.toLowerCase();
  if ((SAMPLERS as readonly string[]).includes(lower)) return lower as TracingSampler;
  return fail(ctx, `must be one of: ${SAMPLERS.join(', ')} (found "${value.slice(0, 30)}")`, 'unset means parentbased_always_on');
});

const samplerArg = optionalText.transform((value, ctx) => {
  if (value === undefined) return value;
  const ratio = Number(value);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    return fail(ctx, `must be a number from 0 to 1 (found "${value.slice(0, 20)}")`, 'e.g. 0.25 keeps a quarter of the traces');
  return ratio;
});

const millis = optionalText.transform((value, ctx) => {
  if (value === undefined) return value;
  if (!/^\d+$/.test(value)) return fail(ctx, `must be a whole number of milliseconds (found "${value.slice(0, 20)}")`, 'unset means 5000');
  return Number(value);
});

const disabled = optionalText.transform((value, ctx) => {
  if (value === undefined) return false;
  const lower = value.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  return fail(ctx, `must be true or false (found "${value.slice(0, 20)}")`);
});

const HEADERS_HINT = 'e.g. authorization=Bearer%20<token>,x-tenant=ops (percent-encode spaces)';

/** The variables, for the environment's schema (`env-schema.ts`). */
export const tracingEnvShape = {
  OTEL_SDK_DISABLED: disabled,
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_HEADERS: keyValueList(HEADERS_HINT),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: keyValueList(HEADERS_HINT),
  OTEL_SERVICE_NAME: optionalText,
  OTEL_RESOURCE_ATTRIBUTES: keyValueList('e.g. deployment.environment.name=prod,service.namespace=tools'),
  OTEL_TRACES_SAMPLER: sampler,
  OTEL_TRACES_SAMPLER_ARG: samplerArg,
  OTEL_BSP_SCHEDULE_DELAY: millis,
};

type TracingEnv = z.output<z.ZodObject<typeof tracingEnvShape>>;

/**
 * What the variables say: undefined when tracing is off. The generic endpoint gets the traces path
 * appended; the traces endpoint is used as it is, and wins (as the OTLP exporter specification says).
 */
export function readTracingEnv(v: TracingEnv): TracingConfig | undefined {
  if (v.OTEL_SDK_DISABLED) return undefined;
  const base = v.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url = v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base === undefined ? undefined : `${base.replace(/\/+$/, '')}/v1/traces`);
  if (url === undefined) return undefined;
  return {
    url,
    headers: { ...v.OTEL_EXPORTER_OTLP_HEADERS, ...v.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
    serviceName: v.OTEL_SERVICE_NAME ?? v.OTEL_RESOURCE_ATTRIBUTES?.['service.name'] ?? DEFAULT_SERVICE_NAME,
    resourceAttributes: v.OTEL_RESOURCE_ATTRIBUTES ?? {},
    sampler: v.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on',
    ...(v.OTEL_TRACES_SAMPLER_ARG !== undefined && { samplerRatio: v.OTEL_TRACES_SAMPLER_ARG }),
    ...(v.OTEL_BSP_SCHEDULE_DELAY !== undefined && { scheduleDelayMs: v.OTEL_BSP_SCHEDULE_DELAY }),
  };
}
