/**
 * Triggers worked per second end to end, on SQLite and on PostgreSQL: a fixed batch of
 * signed Slack mentions sent at a moderate concurrency, timed from the first request until every one
 * has its run (counted by the emulator) and every message owed for it is delivered (the status message
 * posted and edited to show the run, 👀 added), with nothing left in the database's outbox.
 *
 * On PostgreSQL it also counts the statements the replicas sent per worked trigger:
 * three replicas against one, which the wake-ups between replicas must not make much dearer.
 *
 * `workedJiraSection` does the same for Jira label changes: each worked to its run, the
 * start comment posted and edited to show it, on one process and SQLite.
 */
import { JIRA_SECRET, SLACK_SECRET } from './bench-service.js';
import { phase } from './bench-options.js';
import { withOutside } from './intake.js';
import type { LoadResult, WorldSeen } from './outside.js';
import { startReplicas, type Engine, type SentStatements } from './replicas.js';
import { sleep, type Figure, type Section } from './report.js';

const SECTION = 'Worked end to end';
const CONNECTIONS = 10;
const LIMIT_MS = 60_000;
const POLL_MS = 100;
const TARGET = 100;
/** Statements per worked trigger, three replicas against one. */
const STATEMENT_RATIO_TARGET = 1.2;
/** What every mention must cost Slack, once each: its status message, the run's edit of it, 👀 and the permalink. */
const ONCE_PER_RUN = ['chat.postMessage', 'chat.update', 'reactions.add', 'chat.getPermalink'];

interface Config {
  engine: Engine;
  replicas: number;
  label: string;
  /** With limits on: every start then reserves its room, which must cost at most one statement. */
  limits?: boolean;
}

/** Limits no mention of the bench reaches: each start is checked and reserved, none refused. */
const LIMITS_YAML = 'limits:\n  per_person: { concurrent: 1000000, per_day: 1000000 }\n';
/** What the limit check may add to a worked trigger on PostgreSQL: one statement. */
const LIMIT_STATEMENTS_TARGET = 1;

const CONFIGS: Config[] = [
  { engine: 'sqlite', replicas: 1, label: 'SQLite, 1 process' },
  { engine: 'postgres', replicas: 1, label: 'PostgreSQL, 1 replica' },
  { engine: 'postgres', replicas: 3, label: 'PostgreSQL, 3 replicas' },
  { engine: 'postgres', replicas: 1, label: 'PostgreSQL, 1 replica, limits on', limits: true },
];

interface Result {
  config: Config;
  acks: LoadResult;
  /** From the first request until everything was worked and delivered, or the limit. */
  seconds: number;
  complete: boolean;
  runs: number;
  slack: WorldSeen['slack'];
  /** What the replicas sent PostgreSQL from the first request until everything was worked. */
  sent: SentStatements;
}

const delta = (after: WorldSeen, before: WorldSeen, method: string) => (after.slack[method] ?? 0) - (before.slack[method] ?? 0);

export function workedSection(): Promise<Section> {
  const mentions = phase(2_000, 300);
  return withOutside('slack', async ({ load, world, urls }) => {
    const results: Result[] = [];
    for (const config of CONFIGS) {
      const set = await startReplicas(config.engine, config.replicas, urls, undefined, config.limits ? LIMITS_YAML : undefined);
      try {
        const before = await world.seen();
        const sentBefore = await set.statements();
        const started = Date.now();
        const acks = await load.load({ kind: 'slack', url: set.urls, secret: SLACK_SECRET, connections: CONNECTIONS, seconds: 60, amount: mentions });
        let complete = false;
        while (!complete && Date.now() - started < LIMIT_MS) {
          const progress = await set.progress();
          complete = progress.stored === acks.ok && progress.worked === progress.stored && progress.owed === 0;
          if (!complete) await sleep(POLL_MS);
        }
        const seconds = (Date.now() - started) / 1000;
        const sentAfter = await set.statements();
        const after = await world.seen();
        const slack = Object.fromEntries(Object.keys(after.slack).map((method) => [method, delta(after, before, method)]));
        const sent = {
          statements: sentAfter.statements - sentBefore.statements,
          triggerClaims: sentAfter.triggerClaims - sentBefore.triggerClaims,
          outboxClaims: sentAfter.outboxClaims - sentBefore.outboxClaims,
        };
        results.push({ config, acks, seconds, complete, runs: after.runsCreated - before.runsCreated, slack, sent });
      } finally {
        await set.stop();
      }
    }

    const rate = (result: Result) => (result.complete ? result.runs / result.seconds : Number.NaN);
    const sqlite = results[0] as Result;
    const figures: Figure[] = results.map((result) => ({
      section: SECTION,
      name: `${result.config.label}: worked/s`,
      value: rate(result),
      unit: '/s',
      baseline:
        result === sqlite
          ? { label: 'acknowledged/s, same run', value: result.acks.ok / result.acks.seconds }
          : { label: 'SQLite, 1 process', value: rate(sqlite) },
      target: { text: `≥ ${TARGET}/s, every mention worked`, met: result.complete && result.runs === result.acks.ok && rate(result) >= TARGET },
    }));
    figures.push(...statementFigures(results));
    return {
      title: SECTION,
      figures,
      notes: [
        `${mentions.toLocaleString('en-US')} signed Slack app_mention events sent by autocannon over ${CONNECTIONS} connections (spread over the replicas), as fast as they are acknowledged; timed from the first request until the database holds every trigger finished and no message owed (polled every ${POLL_MS} ms). worked/s = runs created (counted by the emulator) / that time. Fresh replicas (separate processes) and a fresh database per configuration.`,
        ...results.map(
          (result) =>
            `${result.config.label}: ${result.acks.ok.toLocaleString('en-US')} acknowledged in ${result.acks.seconds.toFixed(1)} s, ${result.runs.toLocaleString('en-US')} runs created, ` +
            `${result.complete ? `everything worked and delivered after ${result.seconds.toFixed(1)} s` : `NOT finished within ${LIMIT_MS / 1000} s`}; ` +
            `Slack calls: ${Object.entries(result.slack)
              .filter(([, n]) => n > 0)
              .map(([method, n]) => `${method} ${n}`)
              .join(', ')}.` +
            (result.config.engine === 'postgres' ? ` ${statementNote(result)}` : ''),
        ),
        `Statements per worked trigger: every statement the replicas sent PostgreSQL (acknowledging, intake, the outbox, the tracker, heartbeats, idle polls; counted in each replica around node-postgres's Client.query, bench/service-child.ts) from the first request until everything was worked, divided by the runs created; claims are the store's claimNext calls of the intake and outbox workers (one statement each).`,
      ],
    };
  });
}

const perRun = (count: number, result: Result) => (result.complete && result.runs > 0 ? count / result.runs : Number.NaN);

function statementNote(result: Result): string {
  const { statements, triggerClaims, outboxClaims } = result.sent;
  return `Statements sent to PostgreSQL: ${statements.toLocaleString('en-US')}, ${perRun(statements, result).toFixed(2)} per worked trigger (intake claims ${perRun(triggerClaims, result).toFixed(2)}, outbox claims ${perRun(outboxClaims, result).toFixed(2)}).`;
}

/** Statements per worked trigger on PostgreSQL: one replica's, then three replicas' against it. */
function statementFigures(results: readonly Result[]): Figure[] {
  const postgres = results.filter((result) => result.config.engine === 'postgres');
  const one = postgres.find((result) => result.config.replicas === 1 && !result.config.limits);
  if (!one) return [];
  const perTrigger = (result: Result) => perRun(result.sent.statements, result);
  const oncePerRun = (result: Result) =>
    result.complete && ONCE_PER_RUN.every((method) => result.slack[method] === result.runs && result.runs === result.acks.ok);
  return postgres.map((result) => ({
    section: SECTION,
    name: `${result.config.label}: statements per worked trigger`,
    value: perTrigger(result),
    unit: '',
    ...(result.config.limits && {
      baseline: { label: 'PostgreSQL, 1 replica (no limits), same run', value: perTrigger(one) },
      target: {
        text: `≤ ${LIMIT_STATEMENTS_TARGET} statement more than without limits (the reservation), one post, edit, 👀 and permalink per run`,
        met: perTrigger(result) - perTrigger(one) <= LIMIT_STATEMENTS_TARGET && oncePerRun(result) && oncePerRun(one),
      },
    }),
    ...(result !== one &&
      !result.config.limits && {
        baseline: { label: 'PostgreSQL, 1 replica', value: perTrigger(one) },
        target: {
          text: `≤ ${STATEMENT_RATIO_TARGET}× one replica's, one post, edit, 👀 and permalink per run`,
          met: perTrigger(result) <= STATEMENT_RATIO_TARGET * perTrigger(one) && oncePerRun(result) && oncePerRun(one),
        },
      }),
  }));
}

const JIRA_SECTION = 'Worked end to end: Jira';
/** What every Jira label change must cost Jira, once each: the start comment, and the issue read for the prompt. */
const JIRA_ONCE_PER_RUN = ['POST /issue/{key}/comment', 'GET /issue/{key}'];

/**
 * Jira label changes worked per second end to end: signed `jira:issue_updated` deliveries,
 * each an issue gaining the trigger label, timed from the first request until every one has its run
 * and every message owed for it is delivered (the start comment posted, then edited to show the run).
 */
export function workedJiraSection(): Promise<Section> {
  const labels = phase(1_000, 200);
  return withOutside('jira', async ({ load, world, urls }) => {
    const set = await startReplicas('sqlite', 1, urls, 'jira-sqlite-1');
    try {
      const before = await world.seen();
      const started = Date.now();
      const acks = await load.load({ kind: 'jira', url: set.urls, secret: JIRA_SECRET, connections: CONNECTIONS, seconds: 60, amount: labels });
      let complete = false;
      while (!complete && Date.now() - started < LIMIT_MS) {
        const progress = await set.progress();
        complete = progress.stored === acks.ok && progress.worked === progress.stored && progress.owed === 0;
        if (!complete) await sleep(POLL_MS);
      }
      const seconds = (Date.now() - started) / 1000;
      const after = await world.seen();
      const runs = after.runsCreated - before.runsCreated;
      const jira = Object.fromEntries(Object.keys(after.jira).map((call) => [call, (after.jira[call] ?? 0) - (before.jira[call] ?? 0)]));
      const rate = complete ? runs / seconds : Number.NaN;
      const oncePerRun = complete && runs === acks.ok && JIRA_ONCE_PER_RUN.every((call) => jira[call] === runs);
      return {
        title: JIRA_SECTION,
        figures: [
          {
            section: JIRA_SECTION,
            name: 'Jira labels, SQLite, 1 process: worked/s',
            value: rate,
            unit: '/s',
            baseline: { label: 'acknowledged/s, same run', value: acks.ok / acks.seconds },
            target: { text: `≥ ${TARGET}/s, every label worked, one start comment and one issue read per run`, met: oncePerRun && rate >= TARGET },
          },
        ],
        notes: [
          `${labels.toLocaleString('en-US')} signed jira:issue_updated deliveries (each issue JB-n gaining the label agent, its own changelog and X-Atlassian-Webhook-Identifier) sent by autocannon over ${CONNECTIONS} connections to one service process (bench/service-child.ts, Slack and Jira on, a fresh SQLite file, the world child's fake Jira REST v3 and emulator); timed from the first request until the database holds every trigger finished and no message owed (polled every ${POLL_MS} ms). worked/s = runs created / that time.`,
          `${acks.ok.toLocaleString('en-US')} acknowledged in ${acks.seconds.toFixed(1)} s, ${runs.toLocaleString('en-US')} runs created, ${complete ? `everything worked and delivered after ${seconds.toFixed(1)} s` : `NOT finished within ${LIMIT_MS / 1000} s`}; Jira calls: ${Object.entries(
            jira,
          )
            .filter(([, n]) => n > 0)
            .map(([call, n]) => `${call} ${n}`)
            .join(', ')}.`,
        ],
      };
    } finally {
      await set.stop();
    }
  });
}
