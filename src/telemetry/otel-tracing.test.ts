import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentApiClient } from '../agent-api/client.js';
import { AgentApiError } from '../core/ports/agent-runs.js';
import { installTracing, noTracing } from '../core/ports/tracing.js';
import { formatTraceparent, OtelTracing, parseTraceparent, traceLogFields } from './otel-tracing.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracing = new OtelTracing(provider.getTracer('test'));
const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

beforeAll(() => {
  // Its context manager makes a span active across awaits, as in the service.
  provider.register();
  installTracing(tracing);
});
afterAll(() => {
  installTracing(noTracing);
  context.disable();
  trace.disable();
});
afterEach(() => exporter.reset());

const finished = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);

describe('traceparent', () => {
  it('reads a W3C traceparent and writes it back; refuses what is not one', () => {
    const parsed = parseTraceparent(PARENT);
    expect(parsed).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 });
    expect(parsed && formatTraceparent(parsed)).toBe(PARENT);
    for (const bad of ['', 'junk', '00-00000000000000000000000000000000-b7ad6b7169203331-01', 'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01']) {
      expect(parseTraceparent(bad)).toBeUndefined();
    }
  });
});

describe('OtelTracing', () => {
  it('makes a span the child of a stored traceparent, or of the active span, and a root span a trace of its own with its links', async () => {
    await tracing.inSpan('child', { parent: PARENT }, async () => {
      await tracing.inSpan('nested', {}, async (span) => {
        expect(traceLogFields()).toEqual({ trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
        expect(span.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-/);
      });
      await tracing.inSpan('root', { root: true, links: [PARENT, 'junk', undefined] }, async () => {});
    });
    const [child] = finished('child');
    const [nested] = finished('nested');
    const [root] = finished('root');
    expect(child?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(nested?.parentSpanContext?.spanId).toBe(child?.spanContext().spanId);
    expect(root?.parentSpanContext).toBeUndefined();
    expect(root?.spanContext().traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
    expect(root?.links.map((link) => link.context.spanId)).toEqual(['b7ad6b7169203331']);
    expect(traceLogFields()).toEqual({});
  });

  it('marks a span failed with the error’s stable code and throws the error on', async () => {
    const error = new AgentApiError('no', { kind: 'rate_limited', retryable: true, status: 429 });
    await expect(tracing.inSpan('fails', {}, () => Promise.reject(error))).rejects.toBe(error);
    const [span] = finished('fails');
    expect(span?.status.code).toBe(2);
    expect(span?.attributes['error.type']).toBe(error.code);
  });
});

describe('the run API client traced', () => {
  let server: Server;
  let baseUrl: string;
  const answers: Array<{ status: number; body: unknown; headers?: Record<string, string> }> = [];
  beforeAll(async () => {
    server = createServer((_req, res) => {
      const answer = answers.shift() ?? { status: 500, body: {} };
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const client = () => new AgentApiClient({ baseUrl, apiKey: 'key-0123456789', sleep: () => Promise.resolve() });

  it('makes a create an invoke_agent client span with the run id, its retry an event', async () => {
    answers.push({ status: 429, body: { error: 'capacity' }, headers: { 'retry-after': '0' } }, { status: 200, body: { run_id: 'run_42', state: 'QUEUED' } });
    await client().createRun({ prompt: 'p', config: { name: 'web' } });
    const [span] = finished('invoke_agent');
    expect(span?.kind).toBe(2);
    expect(span?.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': 'run_42', 'gen_ai.agent.name': 'web' });
    expect(span?.events.map((event) => [event.name, event.attributes?.['agent_bridge.attempt']])).toEqual([['retry', 1]]);
  });

  it('sets a failed call’s status and error.type to the client’s error code', async () => {
    answers.push({ status: 401, body: { error: 'unauthorized' } });
    const error = await client()
      .sendFollowup('run_7', 'more')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentApiError);
    const [span] = finished('invoke_agent');
    expect(span?.attributes).toMatchObject({ 'gen_ai.conversation.id': 'run_7', 'error.type': (error as AgentApiError).code });
    expect(span?.status.code).toBe(2);
  });

  it('leaves a read outside any span untraced (a tracker poll is no trace of its own)', async () => {
    answers.push({ status: 200, body: { runs: [], page_info: { has_next_page: false } } });
    await client().listRuns();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
