/**
 * Tracing off loads nothing of OpenTelemetry: the real `agent-bridge serve`, with a loader hook that
 * records every `@opentelemetry/` module the child resolves, started once without the variables and
 * once with them (the hook would see them: the first run's silence is not the hook's).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type FakeOtlpReceiver } from '../fakes/otlp-receiver.js';
import { ROOT, startCli, tempDir } from '../helpers/spawn-cli.js';

const RECORDER = pathToFileURL(join(ROOT, 'test/telemetry/record-imports.mjs')).href;

let receiver: FakeOtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver.close();
});

/** Starts `serve` until it is ready, stops it, and answers the OpenTelemetry modules it resolved. */
async function openTelemetryModules(env: Record<string, string>): Promise<string[]> {
  const cwd = tempDir('agent-bridge-otel-off-');
  const file = join(cwd, 'imports.txt');
  const serve = startCli(['serve'], { cwd, env: { PORT: '0', HOST: '127.0.0.1', NODE_OPTIONS: `--import ${RECORDER}`, IMPORTS_FILE: file, ...env } });
  await serve.waitFor(/ready to serve/, 30_000);
  expect(await serve.stop()).toBe(0);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

describe('with the OTEL variables unset', { timeout: 60_000 }, () => {
  it('no OpenTelemetry module is loaded, so no exporter can be created', async () => {
    expect(await openTelemetryModules({})).toEqual([]);
  });

  it('while with the endpoint set the SDK and the exporter are loaded', async () => {
    const loaded = await openTelemetryModules({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    expect(loaded).toEqual(expect.arrayContaining(['@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http']));
  });
});
