/**
 * Intake under load: signed Slack app_mention events and signed Linear webhooks at rising
 * concurrency and at 500/s, against the full service and a bare baseline (bench/throughput.ts).
 */
import {
  LINEAR_KEY,
  LINEAR_SECRET,
  JIRA_EMAIL,
  JIRA_TOKEN,
  RUN_API_KEY,
  SLACK_SECRET,
  SLACK_TOKEN,
  startBareBolt,
  startBareLinear,
  startBenchService,
  type Server,
} from './bench-service.js';
import type { WorldUrls } from './outside.js';
import { startOutside, type Outside } from './outside-client.js';
import type { Section } from './report.js';
import { throughput } from './throughput.js';

const LEVELS = [1, 10, 50, 100];
const LEVEL_SECONDS = 3;
const RATE = 500;
const RATE_CONNECTIONS = 10;
const RATE_SECONDS = 5;
const WARMUP_SECONDS = 1;
/** The same levels, durations and fixed rate for both benches. */
const SCHEDULE = {
  levels: LEVELS,
  seconds: LEVEL_SECONDS,
  rate: RATE,
  rateConnections: RATE_CONNECTIONS,
  rateSeconds: RATE_SECONDS,
  warmupSeconds: WARMUP_SECONDS,
};
/**
 * Issues the fake Linear API knows (the service looks each one up and comments on it): more than the
 * service acknowledges in the whole section at ~1,500/s. The baseline gets issues the fake does not know.
 */
const LINEAR_ISSUES = 30_000;
/** Issues the fake Jira knows: more than the Jira worked section sends. */
const JIRA_ISSUES = 5_000;

/** The two children (world: fakes + emulator; load: autocannon) for the length of a section. */
export async function withOutside(
  kind: 'slack' | 'linear' | 'jira',
  run: (parts: { load: Outside; world: Outside; urls: WorldUrls }) => Promise<Section>,
): Promise<Section> {
  const world = startOutside(`${kind}-world`);
  const load = startOutside(`${kind}-load`);
  try {
    const urls = await world.world({
      slackToken: SLACK_TOKEN,
      linearKey: LINEAR_KEY,
      linearIssues: kind === 'linear' ? LINEAR_ISSUES : 0,
      emulatorKey: RUN_API_KEY,
      ...(kind === 'jira' && { jira: { issues: JIRA_ISSUES, email: JIRA_EMAIL, apiToken: JIRA_TOKEN } }),
    });
    return await run({ load, world, urls });
  } finally {
    await Promise.all([load.close(), world.close()]);
  }
}

async function withServer(server: Server, fn: (server: Server) => Promise<Section>): Promise<Section> {
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

export function slackIntake(): Promise<Section> {
  return withOutside('slack', async ({ load, world, urls }) =>
    withServer(await startBareBolt(urls), (baseline) =>
      throughput({
        section: 'Slack intake',
        kind: 'slack',
        secret: SLACK_SECRET,
        what: 'Correctly signed Events API app_mention callbacks (each with its own event_id, ts and client_msg_id, signed at the moment it is built) POSTed to /slack/events.',
        load,
        world,
        baseline,
        baselineLabel: 'bare Bolt',
        startService: () => startBenchService('slack', urls),
        ...SCHEDULE,
      }),
    ),
  );
}

export function linearIntake(): Promise<Section> {
  return withOutside('linear', async ({ load, world, urls }) =>
    withServer(await startBareLinear(), (baseline) =>
      throughput({
        section: 'Linear intake',
        kind: 'linear',
        secret: LINEAR_SECRET,
        what: 'Correctly signed Linear Issue "update" webhooks in which the issue gains the trigger label Agent (each a different issue ENG-n known to the fake Linear API, its own Linear-Delivery id, webhookTimestamp = when it was built) POSTed to /linear/webhook; the service has linear.labels.agent configured.',
        load,
        world,
        baseline,
        baselineLabel: 'bare HMAC check',
        startService: () => startBenchService('linear', urls),
        ...SCHEDULE,
      }),
    ),
  );
}
