import { describe, expect, it } from 'vitest';
import { parseEnvironment } from './env-schema.js';
import { secretValues } from './secret-values.js';
import { loadConfig } from './load-config.js';
import { describeConfig } from './describe-config.js';

const tracingOf = (env: Record<string, string>) => parseEnvironment(env, '/tmp').settings?.tracing;
const problemsOf = (env: Record<string, string>) => parseEnvironment(env, '/tmp').problems;

describe('OpenTelemetry variables', () => {
  it('leave tracing off when no endpoint is set, and when the SDK is disabled', () => {
    expect(tracingOf({})).toBeUndefined();
    expect(tracingOf({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
  });

  it('send to the generic endpoint’s traces path, or to the traces endpoint as it is, which wins', () => {
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      url: 'http://collector:4318/v1/traces',
      headers: {},
      serviceName: 'agent-bridge',
      resourceAttributes: {},
      sampler: 'parentbased_always_on',
    });
    expect(
      tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/otlp/traces' })?.url,
    ).toBe('https://traces.example.com/otlp/traces');
  });

  it('honour headers, service name, resource attributes, sampler and batch delay', () => {
    expect(
      tracingOf({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20collector-token-123,x-tenant=ops',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-tenant=tools',
        OTEL_SERVICE_NAME: 'bridge-eu',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod',
        OTEL_TRACES_SAMPLER: 'ParentBased_TraceIdRatio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      }),
    ).toEqual({
      url: 'http://127.0.0.1:4318/v1/traces',
      headers: { authorization: 'Bearer collector-token-123', 'x-tenant': 'tools' },
      serviceName: 'bridge-eu',
      resourceAttributes: { 'deployment.environment.name': 'prod' },
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      scheduleDelayMs: 200,
    });
  });

  it('name each wrong variable, never echoing a header’s value', () => {
    const problems = problemsOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'secret-token-value-0123',
      OTEL_TRACES_SAMPLER: 'sometimes',
      OTEL_TRACES_SAMPLER_ARG: '2',
      OTEL_BSP_SCHEDULE_DELAY: '1s',
    });
    expect(problems.map((problem) => problem.where).sort()).toEqual([
      'OTEL_BSP_SCHEDULE_DELAY',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_EXPORTER_OTLP_HEADERS',
      'OTEL_TRACES_SAMPLER',
      'OTEL_TRACES_SAMPLER_ARG',
    ]);
    expect(JSON.stringify(problems)).not.toContain('secret-token-value-0123');
  });

  it('keep the exporter’s header values out of logs and config check', () => {
    const config = loadConfig({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_HEADERS: 'api-key=collector-key-0123456' },
      cwd: '/nonexistent',
    });
    expect(secretValues(config)).toContain('collector-key-0123456');
    expect(JSON.stringify(describeConfig(config))).not.toContain('collector-key-0123456');
    expect(describeConfig(config)['tracing']).toMatchObject({ headers: ['api-key'] });
  });
});
