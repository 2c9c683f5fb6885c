/**
 * The hostile suite's GitHub entries: for every payload type the App receives
 * (issues, issue_comment, pull_request, pull_request_review, pull_request_review_comment,
 * check_run), unsigned, wrongly signed and oversized deliveries get their 4xx before anything is
 * stored, and signed deliveries mutated by a seeded PRNG (fields dropped, nulled, retyped, huge,
 * `__proto__`) get a 200 or 400 — never a 5xx — and a 400 stores nothing. Correctly signed deliveries
 * from people without write access start, steer and stop nothing; signed deliveries captured and sent
 * again under fresh delivery ids are the acts they were; credentials GitHub is sent and quotes back
 * reach no log line. The seed is printed; rerun with HOSTILE_SEED=<n>. Run against the running
 * service with the fake GitHub REST API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GITHUB_EVENTS } from '../../src/github/parse-webhook.js';
import {
  REPO,
  checkRunCompleted,
  githubDelivery,
  githubTime,
  issueComment,
  labeled,
  person,
  pullRequestClosed,
  reviewComment,
  reviewSubmitted,
  type Json,
} from '../fixtures/github/index.js';
import { GITHUB_SECRET, startGithubWorld, type GithubWorld } from '../github/github-harness.js';
import { quiet } from '../linear/linear-harness.js';
import { Prng } from './hostile-payloads.js';
import { SecretScanner, scanningLogger } from './secrets-scan.js';

const SEED = Number(process.env['HOSTILE_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const PER_EVENT = 60;
const rng = new Prng(SEED);

/** A valid payload of each type, addressed so that it would act (a handle comment, a trigger label, …). */
const VALID: Record<string, () => Json> = {
  issues: () => labeled(rng.between(1, 50)),
  issue_comment: () => issueComment(rng.between(1, 50), '@agent hello'),
  pull_request: () => pullRequestClosed(rng.between(1, 50), rng.chance(0.5)),
  pull_request_review: () => reviewSubmitted(rng.between(1, 50), 'changes_requested', 'Please'),
  pull_request_review_comment: () => reviewComment(rng.between(1, 50), 'Rename'),
  check_run: () => checkRunCompleted(rng.between(1, 50)),
};

const HOSTILE_VALUES: unknown[] = [null, 0, -1, 1e308, '', 'x'.repeat(200_000), [], {}, [null], true, { __proto__: { polluted: 1 } }, '\u0000', '@agent stop'];

/** Every path to a value inside `value` (objects and arrays). */
function paths(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  const entries = Object.entries(value as Json);
  return [prefix, ...entries.flatMap(([key, inner]) => paths(inner, [...prefix, key]))];
}

/** One mutation of `payload`: a field dropped, replaced by a hostile value, or the whole body replaced. */
function mutate(payload: Json): string {
  const copy = structuredClone<Json>(payload);
  const targets = paths(copy).filter((path) => path.length > 0);
  const path = rng.pick(targets);
  let parent: Json = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Json;
  const last = path.at(-1)!;
  if (rng.chance(0.3)) delete parent[last];
  else parent[last] = rng.pick(HOSTILE_VALUES);
  const text = JSON.stringify(copy);
  return rng.chance(0.05) ? text.replace('{', '{"__proto__":{"isAdmin":true},') : text;
}

let world: GithubWorld;
beforeAll(async () => {
  console.log(`[hostile-github] seed ${SEED} (rerun with HOSTILE_SEED=${SEED})`);
  world = await startGithubWorld();
});
afterAll(() => world.stop());

/** What a delivery itself may store: triggers (the outbox grows in the background as earlier runs move). */
const stored = async () => ({ triggers: await world.bridge.triggerCount() });

describe(`hostile GitHub deliveries (seed ${SEED})`, () => {
  it('covers every event the App subscribes to', () => {
    expect(Object.keys(VALID).sort()).toEqual([...GITHUB_EVENTS].sort());
  });

  it.each(GITHUB_EVENTS.map((event) => [event]))(
    '%s: unsigned, wrongly signed, tampered and oversized deliveries get a 4xx and change nothing',
    async (event) => {
      await quiet(world.bridge.service);
      const before = await stored();
      const calls = world.github.calls.length;
      const body = JSON.stringify(VALID[event]!());
      expect((await world.deliver(event, body, { signature: null })).status).toBe(401);
      expect((await world.deliver(event, body, { signature: `sha256=${'f'.repeat(64)}` })).status).toBe(401);
      expect((await world.deliver(event, body, { signature: 'sha1=abc' })).status).toBe(401);
      // Tampered after signing: the signature of the original body, a changed body.
      const { headers } = githubDelivery(GITHUB_SECRET, event, body);
      const tampered = await fetch(`${world.bridge.service.url}/github/webhook`, { method: 'POST', headers, body: body.replace('acme', 'acmf') });
      expect(tampered.status).toBe(401);
      const huge = await fetch(`${world.bridge.service.url}/github/webhook`, { method: 'POST', headers, body: 'x'.repeat(2 * 1024 * 1024) });
      expect(huge.status).toBe(413);
      await quiet(world.bridge.service);
      expect(await stored()).toEqual(before);
      expect(world.github.calls.length).toBe(calls);

      // Only the correctly signed delivery may act: at most one trigger. It may also reach GitHub without
      // one (a pull request that is a run's place, closed: the run's thread is told through the outbox).
      expect((await world.deliver(event, body)).status).toBe(200);
      const after = await stored();
      expect(after.triggers - before.triggers).toBeLessThanOrEqual(1);
    },
  );

  it.each(GITHUB_EVENTS.map((event) => [event]))(`%s: ${PER_EVENT} signed, mutated payloads — never a 5xx, and a 400 stores nothing`, async (event) => {
    for (let i = 0; i < PER_EVENT; i++) {
      const body = mutate(VALID[event]!());
      const before = await stored();
      const answer = await world.deliver(event, body);
      expect([200, 400], `${event} #${i}: ${body.slice(0, 300)}`).toContain(answer.status);
      if (answer.status === 400) expect(await stored()).toEqual(before);
    }
    const health = await fetch(`${world.bridge.service.url}/healthz`);
    expect(health.status).toBe(200);
  });
});

/** A new issue of the fake GitHub, numbered past the ones the fuzzing above names. */
let nextIssue = 500;
function newIssue(title: string): number {
  nextIssue += 1;
  world.github.addIssue({
    repo: REPO,
    number: nextIssue,
    title,
    body: null,
    user: { login: 'octocat', id: 1, type: 'User' },
    labels: ['agent'],
    state: 'open',
  });
  return nextIssue;
}
const runsOn = (number: number) => world.fakes.emulator.engine.list({}).runs.filter((run) => run.title?.startsWith(`${REPO}#${number}:`));
const place = (number: number) => `github:${REPO}#${number}`;
async function runOf(number: number, other?: string) {
  const run = await world.bridge.until(() => runsOn(number).find((r) => r.run_id !== other), `a run on #${number}`);
  await world.bridge.until(async () => (await world.bridge.service.store.anchors.currentRun(place(number))) === run.run_id, 'the run stored');
  return run;
}

describe(`GitHub deliveries from people without write access (seed ${SEED})`, () => {
  it('a storm of signed label changes, stops, steers and new starts by strangers and read-only members leaves the run alone and GitHub silent', async () => {
    const number = newIssue('Keep running');
    expect((await world.deliver('issues', labeled(number))).body['outcome']).toBe('stored');
    const run = await runOf(number);
    await quiet(world.bridge.service);
    const comments = world.github.comments(REPO, number).length;
    const readers = ['stranger', 'drive-by', 'reader-1', 'reader-2'];
    for (const login of readers.slice(2)) world.github.setRole(REPO, login, rng.pick(['read', 'triage']));
    const attacks: Array<[string, Json]> = [];
    for (let i = 0; i < 40; i++) {
      const login = rng.pick(readers);
      const association = login.startsWith('reader') ? rng.pick(['MEMBER', 'COLLABORATOR']) : rng.pick(['MEMBER', 'COLLABORATOR', 'CONTRIBUTOR', 'NONE']);
      const id = 90_000 + i;
      const text = rng.pick(['@agent stop', '@agent cancel', '@agent new run my prompt', '@agent also delete the tests', '@agent']);
      const attack: [string, Json] = rng.chance(0.4)
        ? [
            'issues',
            labeled(number, 'agent', { action: rng.pick(['labeled', 'unlabeled']), sender: person(login), issue: { updated_at: githubTime(-i * 1000) } }),
          ]
        : ['issue_comment', issueComment(number, text, { id, association, user: person(login) })];
      attacks.push(attack);
    }
    for (const [event, payload] of attacks) expect((await world.deliver(event, payload)).status).toBe(200);
    await quiet(world.bridge.service);
    expect(runsOn(number).map((r) => r.run_id)).toEqual([run.run_id]);
    expect(world.fakes.emulator.engine.list({}).runs.find((r) => r.run_id === run.run_id)?.state).not.toBe('CANCELLED');
    expect(world.fakes.emulator.engine.followups(run.run_id)).toEqual([]);
    expect(world.github.comments(REPO, number)).toHaveLength(comments);
    expect(world.github.reactions.filter((r) => r.subject.startsWith('issue-comment:9'))).toEqual([]);
  });
});

describe(`GitHub deliveries sent again under fresh delivery ids (seed ${SEED})`, () => {
  it('label changes and a steer, captured and replayed in any order many times, add no request: the later run is neither cancelled nor steered twice', async () => {
    const number = newIssue('Replay me');
    const at = (secondsAgo: number) => ({ issue: { updated_at: githubTime(secondsAgo * 1000) } });
    const first = labeled(number, 'agent', at(30));
    const removed = labeled(number, 'agent', { action: 'unlabeled', ...at(20) });
    const again = labeled(number, 'agent', at(10));
    const steer = issueComment(number, '@agent and add a test', { id: 95_001 });
    expect((await world.deliver('issues', first)).body['outcome']).toBe('stored');
    const one = await runOf(number);
    expect((await world.deliver('issues', removed)).body['outcome']).toBe('stored');
    await world.bridge.until(async () => (await world.bridge.service.store.trackedRuns.get(one.run_id))?.tracked === false, 'the cancel seen');
    expect((await world.deliver('issues', again)).body['outcome']).toBe('stored');
    const two = await runOf(number, one.run_id);
    expect((await world.deliver('issue_comment', steer)).body['outcome']).toBe('stored');
    await world.bridge.until(() => world.fakes.emulator.engine.followups(two.run_id).length === 1, 'the steer');
    await quiet(world.bridge.service);

    const triggers = await world.bridge.triggerCount();
    const captured: Array<[string, Json]> = [
      ['issues', first],
      ['issues', removed],
      ['issues', again],
      ['issue_comment', steer],
    ];
    for (let i = 0; i < 24; i++) {
      const [event, payload] = rng.pick(captured);
      const answer = await world.deliver(event, payload);
      expect(answer.status).toBe(200);
      expect(answer.body['outcome']).not.toBe('stored');
    }
    await quiet(world.bridge.service);
    expect(await world.bridge.triggerCount()).toBe(triggers);
    expect(world.fakes.emulator.engine.list({}).runs.find((r) => r.run_id === two.run_id)?.state).not.toBe('CANCELLED');
    expect(world.fakes.emulator.engine.followups(two.run_id)).toHaveLength(1);
    expect(runsOn(number)).toHaveLength(2);
  });
});

describe('credentials GitHub is sent and quotes back', () => {
  it('the App’s JWT and the installation tokens in GitHub’s error answers reach no log line, raw or written', async () => {
    const scanner = new SecretScanner({ keepTexts: true });
    const own = await startGithubWorld({ logger: scanningLogger(scanner) });
    try {
      // Every credential sent comes back in an error: the JWT from the token endpoint, the token from the calls.
      own.github.failNext('createToken', { status: 401, echo: true });
      own.github.failNext('getPermission', { status: 502, echo: true });
      own.github.failNext('getIssue', { status: 500, echo: true });
      own.github.failNext('createComment', { status: 502, echo: true });
      own.github.addIssue({
        repo: REPO,
        number: 1,
        title: 'Echo',
        body: null,
        user: { login: 'octocat', id: 1, type: 'User' },
        labels: ['agent'],
        state: 'open',
      });
      expect((await own.deliver('issues', labeled(1))).body['outcome']).toBe('stored');
      await own.bridge.until(() => own.github.comments(REPO, 1).some((c) => c.body.includes('<!-- agent-bridge:received:')), 'the start comment', 20_000);
      await own.bridge.until(() => own.fakes.emulator.engine.list({}).runs.length === 1, 'the run');
      for (const route of ['createToken', 'getPermission', 'getIssue', 'createComment']) {
        expect(own.github.callsTo(route).some((call) => call.status >= 400)).toBe(true);
      }
      const jwts = own.github.callsTo('createToken').map((call) => call.authorization?.replace(/^bearer /i, '') ?? '');
      expect(jwts.length).toBeGreaterThan(1);
      for (const jwt of jwts) scanner.watch('GITHUB_APP_JWT', jwt);
      for (const { token } of own.github.tokens) scanner.watch('GITHUB_INSTALLATION_TOKEN', token);
      expect(scanner.scanned.get('log line (pino output)')).toBeGreaterThan(0);
      scanner.assertClean();
    } finally {
      await own.stop();
    }
  });
});
