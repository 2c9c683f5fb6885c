/**
 * A collector in the test's process: an OTLP/HTTP receiver on loopback that decodes the JSON
 * `ExportTraceServiceRequest`s the OTLP exporter sends (`POST /v1/traces`) into flat spans the tests
 * read, and answers as a collector does. Tests wait on it having received spans, never on time.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type AttributeValue = string | number | boolean;

/** One span as received. Ids are lowercase hex, as OTLP/JSON writes them. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Absent for a trace's root span. */
  parentSpanId?: string;
  name: string;
  kind: 'internal' | 'server' | 'client' | 'producer' | 'consumer' | 'unspecified';
  attributes: Record<string, AttributeValue>;
  events: Array<{ name: string; attributes: Record<string, AttributeValue> }>;
  links: Array<{ traceId: string; spanId: string }>;
  status: { code: 'unset' | 'ok' | 'error'; message?: string };
  /** The resource's attributes (`service.name`, …). */
  resource: Record<string, AttributeValue>;
}

export interface FakeOtlpReceiver {
  /** The base to set as `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporter appends `/v1/traces`). */
  endpoint: string;
  spans(): ReceivedSpan[];
  /** The headers of every export request received. */
  requests(): IncomingHttpHeaders[];
  /** Resolves with the first non-empty answer of `find` over the spans so far, checked on every export; fails after `timeoutMs`. */
  waitFor<T>(find: (spans: ReceivedSpan[]) => T | undefined | false, what: string, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

interface JsonKeyValue {
  key: string;
  value?: { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };
}

interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: JsonKeyValue[];
  events?: Array<{ name: string; attributes?: JsonKeyValue[] }>;
  links?: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number; message?: string };
}

interface ExportTraceServiceRequest {
  resourceSpans?: Array<{ resource?: { attributes?: JsonKeyValue[] }; scopeSpans?: Array<{ spans?: JsonSpan[] }> }>;
}

const KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] as const;
const STATUS = ['unset', 'ok', 'error'] as const;

function attributes(list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    if (value?.stringValue !== undefined) out[key] = value.stringValue;
    else if (value?.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value?.doubleValue !== undefined) out[key] = value.doubleValue;
    else if (value?.boolValue !== undefined) out[key] = value.boolValue;
  }
  return out;
}

/** The spans of one export request, flattened. */
export function decodeExport(body: ExportTraceServiceRequest): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributes(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
        name: span.name,
        kind: KINDS[span.kind ?? 0] ?? 'unspecified',
        attributes: attributes(span.attributes),
        events: (span.events ?? []).map((event) => ({ name: event.name, attributes: attributes(event.attributes) })),
        links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
        status: { code: STATUS[span.status?.code ?? 0] ?? 'unset', ...(span.status?.message ? { message: span.status.message } : {}) },
        resource,
      })),
    );
  });
}

/** Starts the receiver on a random loopback port. */
export async function startOtlpReceiver(): Promise<FakeOtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces' || !String(request.headers['content-type']).startsWith('application/json')) {
        response.writeHead(404).end();
        return;
      }
      headers.push(request.headers);
      received.push(...decodeExport(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportTraceServiceRequest));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const check of waiters) check();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    requests: () => [...headers],
    waitFor: (find, what, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the receiver got no ${what} within ${timeoutMs} ms; spans: ${received.map((span) => span.name).join(', ')}`));
        }, timeoutMs);
        const check = () => {
          const found = find(received);
          if (!found) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
