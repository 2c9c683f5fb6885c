/**
 * Issue 29, point 5 — the hostile suite's GitHub entries: for every payload type the App receives
 * (issues, issue_comment, pull_request, pull_request_review, pull_request_review_comment,
 * check_run), unsigned, wrongly signed and oversized deliveries get their 4xx before anything is
 * stored, and signed deliveries mutated by a seeded PRNG (fields dropped, nulled, retyped, huge,
 * `__proto__`) get a 200 or 400 — never a 5xx — and a 400 stores nothing. The seed is printed;
 * rerun with HOSTILE_SEED=<n>. Run against the running service with the fake GitHub REST API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GITHUB_EVENTS } from '../../src/github/parse-webhook.js';
import {
  checkRunCompleted,
  githubDelivery,
  issueComment,
  labeled,
  pullRequestClosed,
  reviewComment,
  reviewSubmitted,
  type Json,
} from '../fixtures/github/index.js';
import { GITHUB_SECRET, startGithubWorld, type GithubWorld } from '../github/github-harness.js';
import { quiet } from '../linear/linear-harness.js';
import { Prng } from './hostile-payloads.js';

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
