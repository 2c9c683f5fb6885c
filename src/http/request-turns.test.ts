import { describe, expect, it } from 'vitest';
import { RequestTurns } from './request-turns.js';

/** A loop whose turns the test runs by hand. */
function manualLoop() {
  const pending: Array<() => void> = [];
  return {
    nextTurn: (run: () => void) => void pending.push(run),
    /** Runs the callbacks scheduled for the next turn (not those they schedule in turn). */
    turn() {
      for (const run of pending.splice(0)) run();
    },
    get scheduled() {
      return pending.length;
    },
  };
}

describe('RequestTurns', () => {
  it('starts one request a turn, in the order they arrived', () => {
    const loop = manualLoop();
    const turns = new RequestTurns(loop.nextTurn);
    const started: string[] = [];
    for (const name of ['a', 'b', 'c']) turns.enqueue(() => started.push(name));
    expect(started).toEqual([]);
    expect(turns.waiting).toBe(3);

    loop.turn();
    expect(started).toEqual(['a']);
    loop.turn();
    expect(started).toEqual(['a', 'b']);
    loop.turn();
    expect(started).toEqual(['a', 'b', 'c']);
    expect(turns.waiting).toBe(0);
    expect(loop.scheduled).toBe(0);
  });

  it('asks for one turn at a time however many requests arrive in one turn', () => {
    const loop = manualLoop();
    const turns = new RequestTurns(loop.nextTurn);
    for (let n = 0; n < 50; n++) turns.enqueue(() => {});
    expect(loop.scheduled).toBe(1);
  });

  it('a request that arrives while the queue is empty waits for the next turn, not longer', () => {
    const loop = manualLoop();
    const turns = new RequestTurns(loop.nextTurn);
    const started: string[] = [];
    turns.enqueue(() => started.push('first'));
    loop.turn();
    turns.enqueue(() => started.push('later'));
    loop.turn();
    expect(started).toEqual(['first', 'later']);
  });

  it('a start that throws does not stall the requests behind it', () => {
    const loop = manualLoop();
    const turns = new RequestTurns(loop.nextTurn);
    const started: string[] = [];
    turns.enqueue(() => {
      throw new Error('a broken start');
    });
    turns.enqueue(() => started.push('next'));
    expect(() => loop.turn()).toThrow('a broken start');
    loop.turn();
    expect(started).toEqual(['next']);
  });

  it('runs on the real event loop by default', async () => {
    const turns = new RequestTurns();
    const started = await new Promise<string>((resolve) => turns.enqueue(() => resolve('started')));
    expect(started).toBe('started');
  });
});
