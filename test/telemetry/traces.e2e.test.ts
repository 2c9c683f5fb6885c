/**
 * Tracing on, end to end: the real service (`agent-bridge serve`, a real SQLite file, the real Bolt)
 * with `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at an in-process OTLP/HTTP receiver, the fake Slack Web
 * API and the run-API emulator. Every wait is on the receiver having got the spans, never on time.
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { startFakeSlackApi, type FakeSlackApi } from '../fakes/slack-api.js';
import { startOtlpReceiver, type FakeOtlpReceiver, type ReceivedSpan } from '../fakes/otlp-receiver.js';
import { postSlackEvent } from '../fakes/slack-signing.js';
import { appMention, eventCallback } from '../fixtures/slack/events.js';
import { nextTs, SLACK_IDS } from '../fixtures/slack/ids.js';
import { startCli, tempDir, type RunningCli } from '../helpers/spawn-cli.js';
import { postDelivery } from '../helpers/deliveries.js';
import { startFakeLinearApi, type FakeLinearApi } from '../fakes/linear-api.js';
import { labelAdded, linearDelivery } from '../fixtures/linear/index.js';
import { LINEAR_KEY, LINEAR_SECRET, newIssue } from '../linear/linear-harness.js';

const SECRET = 'otel-e2e-signing-secret-0123456789';
const BOT_TOKEN = 'xoxb-0000-1111-otel-e2e-token';
const API_KEY = 'otel-e2e-run-api-key-0123456789';
const COLLECTOR_KEY = 'collector-api-key-0123456789';
const LISTENING = /"url":"(http:\/\/[^"]+)".*agent-bridge is listening/;

let receiver: FakeOtlpReceiver;
let slack: FakeSlackApi;
let emulator: RunningEmulator;
let serve: RunningCli;
let events: string;
let linear: FakeLinearApi;
let linearWebhook: string;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  slack = await startFakeSlackApi({ token: BOT_TOKEN });
  linear = await startFakeLinearApi();
  emulator = await startEmulator({ apiKey: API_KEY, port: 0, manual: true });
  const cwd = tempDir('agent-bridge-otel-');
  // A schedule every second: its slots fire by the real clock, and the test waits for the first one's trace.
  writeFileSync(
    join(cwd, 'agent-bridge.yml'),
    'tracker:\n  interval: 1s\nlinear:\n  labels:\n    agent: {}\nschedules:\n  - name: tick\n    cron: "* * * * * *"\n    prompt: Check the tick.\n    overlap: allow\n',
  );
  serve = startCli(['serve'], {
    cwd,
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
      DATABASE_PATH: join(cwd, 'bridge.db'),
      AGENT_API_BASE_URL: emulator.baseUrl,
      AGENT_API_KEY: API_KEY,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.url,
      LINEAR_API_KEY: LINEAR_KEY,
      LINEAR_WEBHOOK_SECRET: LINEAR_SECRET,
      LINEAR_API_URL: linear.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${COLLECTOR_KEY}`,
      OTEL_SERVICE_NAME: 'bridge-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '20',
    },
  });
  const [, url] = await serve.waitFor(LISTENING, 30_000);
  events = `${url}/slack/events`;
  linearWebhook = `${url}/linear/webhook`;
}, 60_000);

afterAll(async () => {
  await serve?.stop();
  await Promise.all([receiver?.close(), slack?.close(), linear?.close(), emulator?.close()]);
});

const named = (spans: ReceivedSpan[], name: string, test: (span: ReceivedSpan) => boolean = () => true) =>
  spans.find((span) => span.name === name && test(span));

describe('traces over OTLP/HTTP', { timeout: 60_000 }, () => {
  it('show a Slack mention as one trace: the request, the intake as its child, the invoke_agent call with the run id, and Slack calls', async () => {
    const ts = nextTs();
    const mention = eventCallback(appMention({ channel: SLACK_IDS.channel, ts, text: `<@${SLACK_IDS.botUser}> fix the flaky test` }));
    const incoming = '00-11111111111111111111111111111111-2222222222222222-01';
    expect((await postSlackEvent(events, SECRET, mention, { headers: { traceparent: incoming } })).status).toBe(200);

    const request = await receiver.waitFor(
      (spans) => named(spans, 'agent_bridge.request', (span) => span.attributes['agent_bridge.place']?.toString().includes(ts) === true),
      'request span',
    );
    expect(request).toMatchObject({
      kind: 'server',
      attributes: {
        'agent_bridge.surface': 'slack',
        'agent_bridge.person': SLACK_IDS.user,
        'http.route': '/slack/events',
        'http.response.status_code': 200,
      },
      resource: { 'service.name': 'bridge-under-test' },
    });
    expect(request.attributes['agent_bridge.trigger_key']).toEqual(expect.any(String));
    // A sender's traceparent is a link, never the parent: the request starts a trace of its own.
    expect(request.parentSpanId).toBeUndefined();
    expect(request.traceId).not.toBe('11111111111111111111111111111111');
    expect(request.links).toContainEqual({ traceId: '11111111111111111111111111111111', spanId: '2222222222222222' });

    const intake = await receiver.waitFor((spans) => named(spans, 'agent_bridge.intake', (span) => span.parentSpanId === request.spanId), 'intake span');
    expect(intake).toMatchObject({
      traceId: request.traceId,
      attributes: { 'agent_bridge.attempt': 1, 'agent_bridge.trigger_key': request.attributes['agent_bridge.trigger_key'] },
    });
    const invoke = await receiver.waitFor((spans) => named(spans, 'invoke_agent', (span) => span.parentSpanId === intake.spanId), 'invoke_agent span');
    const runId = emulator.engine.list({}).runs.find((run) => run.prompt?.includes('fix the flaky test'))?.run_id;
    expect(invoke).toMatchObject({
      kind: 'client',
      traceId: request.traceId,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': runId },
    });
    expect(intake.attributes['agent_bridge.run_id']).toBe(runId);
    // The run API's HTTP exchange (undici's instrumentation) is the invoke span's child.
    await receiver.waitFor((spans) => spans.some((span) => span.parentSpanId === invoke.spanId && span.kind === 'client'), 'the run API HTTP span');

    // Every Slack message about it is a delivery linked to the request's trace, with Slack's HTTP call inside.
    const delivery = await receiver.waitFor(
      (spans) => named(spans, 'agent_bridge.outbox.deliver', (span) => span.links.some((link) => link.traceId === request.traceId)),
      'delivery',
    );
    await receiver.waitFor(
      (spans) =>
        spans.some(
          (span) =>
            span.traceId === delivery.traceId &&
            span.kind === 'client' &&
            String(span.attributes['url.full'] ?? span.attributes['http.url'] ?? '').startsWith(slack.url),
        ),
      'the Slack call inside a delivery',
    );

    // The tracker's state change and what it owes link back to the run's trace (its intake span's).
    emulator.engine.drive(runId ?? '', 'SUCCEEDED');
    const change = await receiver.waitFor(
      (spans) => named(spans, 'agent_bridge.tracker.state_change', (span) => span.attributes['agent_bridge.run_id'] === runId),
      'state change',
      30_000,
    );
    expect(change.links).toContainEqual({ traceId: intake.traceId, spanId: intake.spanId });
    // The run's whole life by its run id: the end's announcement in the thread names the run too.
    const announced = await receiver.waitFor(
      (spans) =>
        named(
          spans,
          'agent_bridge.outbox.deliver',
          (span) => span.attributes['gen_ai.conversation.id'] === runId && span.attributes['agent_bridge.outbox.kind'] === 'announce',
        ),
      'the end announced, found by the run id',
    );
    expect(announced.links).toContainEqual({ traceId: intake.traceId, spanId: intake.spanId });
    expect(receiver.requests()[0]?.['x-api-key']).toBe(COLLECTOR_KEY);
  });

  it('links a redelivered event (Slack’s retry) to the first request instead of parenting anything under it', async () => {
    const ts = nextTs();
    const mention = eventCallback(appMention({ channel: SLACK_IDS.channel, ts, text: `<@${SLACK_IDS.botUser}> bump the version` }));
    expect((await postSlackEvent(events, SECRET, mention)).status).toBe(200);
    const first = await receiver.waitFor(
      (spans) => named(spans, 'agent_bridge.request', (span) => String(span.attributes['agent_bridge.place']).includes(ts)),
      'first request',
    );
    expect((await postSlackEvent(events, SECRET, mention, { retryNum: 1, retryReason: 'http_timeout' })).status).toBe(200);
    const again = await receiver.waitFor(
      (spans) => named(spans, 'agent_bridge.request', (span) => span.spanId !== first.spanId && String(span.attributes['agent_bridge.place']).includes(ts)),
      'redelivered request',
    );
    expect(again.attributes['agent_bridge.redelivered']).toBe(true);
    expect(again.traceId).not.toBe(first.traceId);
    expect(again.links).toContainEqual({ traceId: first.traceId, spanId: first.spanId });
    await receiver.waitFor((spans) => named(spans, 'agent_bridge.intake', (span) => span.parentSpanId === first.spanId), 'the one intake span');
    expect(receiver.spans().filter((span) => span.parentSpanId === again.spanId && span.name === 'agent_bridge.intake')).toEqual([]);
  });

  it('marks a refused request’s span failed with our stable error code', async () => {
    const refused = await postSlackEvent(events, 'not-the-signing-secret-at-all', eventCallback(appMention({ ts: nextTs() })));
    expect(refused.status).toBe(401);
    const span = await receiver.waitFor((spans) => named(spans, 'agent_bridge.request', (found) => found.status.code === 'error'), 'failed request span');
    expect(span.attributes['error.type']).toBe('invalid_signature');
  });

  it('show a Linear label’s start as a trace of its own through the signed-webhook edge, with its run', async () => {
    const { issue, data } = newIssue(linear, 'Tidy the traces');
    expect((await postDelivery(linearWebhook, linearDelivery(LINEAR_SECRET, labelAdded(undefined, undefined, data)))).status).toBe(200);
    const request = await receiver.waitFor(
      (spans) =>
        named(
          spans,
          'agent_bridge.request',
          (span) => span.attributes['agent_bridge.surface'] === 'linear' && span.attributes['http.route'] === '/linear/webhook',
        ),
      'Linear request span',
    );
    expect(String(request.attributes['agent_bridge.place'])).toContain(issue.id);
    const intake = await receiver.waitFor((spans) => named(spans, 'agent_bridge.intake', (span) => span.parentSpanId === request.spanId), 'Linear intake span');
    const invoke = await receiver.waitFor((spans) => named(spans, 'invoke_agent', (span) => span.parentSpanId === intake.spanId), 'Linear invoke_agent span');
    expect(invoke.attributes['gen_ai.conversation.id']).toEqual(expect.any(String));
  });

  it('starts a trace of its own for each schedule slot, the slot’s intake its child', async () => {
    const slot = await receiver.waitFor(
      (spans) => named(spans, 'agent_bridge.schedule.slot', (span) => span.attributes['agent_bridge.schedule'] === 'tick'),
      'schedule slot',
    );
    expect(slot.parentSpanId).toBeUndefined();
    await receiver.waitFor((spans) => named(spans, 'agent_bridge.intake', (span) => span.parentSpanId === slot.spanId), 'the slot’s intake span');
  });

  it('writes trace_id and span_id on log lines written inside a span', async () => {
    const traces = new Set(receiver.spans().map((span) => span.traceId));
    const lines = serve.output.stdout
      .split('\n')
      .filter((line) => line.includes('"trace_id"'))
      .map((line) => JSON.parse(line) as { trace_id: string; span_id: string });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.some((line) => traces.has(line.trace_id) && /^[0-9a-f]{16}$/.test(line.span_id))).toBe(true);
    expect(serve.output.stdout).not.toContain(COLLECTOR_KEY);
  });
});
