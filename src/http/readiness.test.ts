import { describe, expect, it } from 'vitest';
import { CapturingLogger } from '../../test/core/capturing-logger.js';
import { TestClock } from '../core/ports/clock.js';
import { CachedReadiness, READINESS_TTL_MS } from './readiness.js';

/** A check that counts its calls; `fail` makes it throw `reason`, `gate` holds it until released. */
function countingCheck(name = 'agent_api') {
  const state = { calls: 0, fail: undefined as string | undefined, gate: undefined as Promise<void> | undefined };
  return {
    state,
    check: {
      name,
      check: async () => {
        state.calls++;
        if (state.gate) await state.gate;
        if (state.fail) throw new Error(state.fail);
      },
    },
  };
}

describe('CachedReadiness', () => {
  it('40 calls over 12 s make 3 upstream checks (one per 5 s)', async () => {
    const clock = new TestClock();
    const { state, check } = countingCheck();
    const readiness = new CachedReadiness([check], { now: () => clock.now(), logger: new CapturingLogger() });
    for (let call = 0; call < 40; call++) {
      expect(await readiness.outcomes()).toEqual([{ name: 'agent_api', ok: true }]);
      await clock.advance(300);
    }
    expect(state.calls).toBe(3);
  });

  it('calls that arrive while a check runs share it', async () => {
    const { state, check } = countingCheck();
    let release = () => {};
    state.gate = new Promise<void>((resolve) => (release = resolve));
    const readiness = new CachedReadiness([check], { now: () => 0, logger: new CapturingLogger() });
    const pending = Array.from({ length: 40 }, () => readiness.outcomes());
    release();
    const outcomes = await Promise.all(pending);
    expect(state.calls).toBe(1);
    expect(outcomes.every((outcome) => outcome[0]?.ok === true)).toBe(true);
  });

  it('an outcome is reused for the TTL, then checked again', async () => {
    const clock = new TestClock();
    const { state, check } = countingCheck();
    const readiness = new CachedReadiness([check], { now: () => clock.now(), logger: new CapturingLogger() });
    await readiness.outcomes();
    state.fail = 'could not reach the run API';
    await clock.advance(READINESS_TTL_MS - 1);
    expect((await readiness.outcomes())[0]?.ok).toBe(true);
    await clock.advance(1);
    expect(await readiness.outcomes()).toEqual([{ name: 'agent_api', ok: false, detail: 'could not reach the run API' }]);
  });

  it('logs a failure once with its reason, again only when the reason changes, and the recovery once', async () => {
    const clock = new TestClock();
    const logger = new CapturingLogger();
    const { state, check } = countingCheck();
    const readiness = new CachedReadiness([check], { now: () => clock.now(), logger });
    const round = async (times: number) => {
      for (let call = 0; call < times; call++) {
        await readiness.outcomes();
        await clock.advance(READINESS_TTL_MS);
      }
    };
    await round(3);
    state.fail = '401: the run API refused the key; check AGENT_API_KEY';
    await round(10);
    state.fail = 'could not reach the run API';
    await round(10);
    state.fail = undefined;
    await round(10);
    expect(state.calls).toBe(33);
    expect(logger.lines.map((line) => [line.level, line.msg, line.fields['reason']])).toEqual([
      ['warn', 'readiness check failed', '401: the run API refused the key; check AGENT_API_KEY'],
      ['warn', 'readiness check failed', 'could not reach the run API'],
      ['info', 'readiness check passes again', undefined],
    ]);
  });

  it('reports each outcome (for the readiness gauge) and keeps checks apart', async () => {
    const database = countingCheck('database');
    const api = countingCheck('agent_api');
    api.state.fail = 'timeout';
    const seen: string[] = [];
    const readiness = new CachedReadiness([database.check, api.check], {
      now: () => 0,
      logger: new CapturingLogger(),
      onOutcome: (outcome) => seen.push(`${outcome.name}=${outcome.ok}`),
    });
    expect((await readiness.outcomes()).map((outcome) => outcome.ok)).toEqual([true, false]);
    expect(seen.sort()).toEqual(['agent_api=false', 'database=true']);
  });
});
