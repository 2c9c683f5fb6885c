import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.js';
import { RunEngine, RunEngineError, defaultTitle, parseRfc3339 } from './index.js';

describe('RunEngine in-process', () => {
  it('keeps updated_at strictly increasing per run while the clock stands still or goes back', () => {
    let now = Date.parse('2026-05-05T05:05:05.005Z');
    const engine = new RunEngine({ manual: true, clock: { now: () => new Date(now) } });
    const id = engine.createRun({ prompt: 'p' }).run_id;
    const a = engine.drive(id, 'PENDING').updated_at ?? '';
    now -= 10_000;
    const b = engine.drive(id, 'CLAIMED').updated_at ?? '';
    expect(a).toBe('2026-05-05T05:05:05.006Z');
    expect(b).toBe('2026-05-05T05:05:05.007Z');
    expect(engine.get(id)?.created_at).toBe('2026-05-05T05:05:05.005Z');
  });

  it('tells subscribers about every change and waits for a state', async () => {
    const engine = new RunEngine({ manual: true });
    const changes: string[] = [];
    const unsubscribe = engine.subscribe(({ run, previousState }) => changes.push(`${previousState}>${run.state}`));
    const id = engine.createRun({ prompt: 'p' }).run_id;
    const waiting = engine.waitFor(id, 'CLAIMED', 1000);
    engine.advance(id);
    engine.advance(id);
    await expect(waiting).resolves.toMatchObject({ state: 'CLAIMED' });
    unsubscribe();
    engine.advance(id);
    expect(changes).toEqual(['QUEUED>PENDING', 'PENDING>CLAIMED']);
    await expect(engine.waitFor(id, 'SUCCEEDED', 20)).rejects.toThrow(/did not reach/);
  });

  it('refuses with typed errors', () => {
    const engine = new RunEngine({ manual: true });
    expect(() => engine.get('nope')).not.toThrow();
    expect(() => engine.cancel('nope')).toThrow(RunEngineError);
    const id = engine.createRun({ prompt: 'p' }).run_id;
    engine.advance(id);
    try {
      engine.cancel(id);
      expect.unreachable();
    } catch (error) {
      expect((error as RunEngineError).code).toBe('conflict');
    }
  });

  it('returns copies that cannot change the engine', () => {
    const engine = new RunEngine({ manual: true });
    const id = engine.createRun({ prompt: 'p', config: { name: 'n' } }).run_id;
    const run = engine.get(id);
    (run?.agent_config as { name: string }).name = 'changed';
    expect(engine.get(id)?.agent_config?.name).toBe('n');
  });

  it('reset forgets runs', () => {
    const engine = new RunEngine({ manual: true });
    engine.createRun({ prompt: 'p' });
    engine.reset();
    expect(engine.list()).toEqual({ runs: [] });
  });
});

describe('parsers', () => {
  it.each([
    ['2026-01-02T03:04:05Z', Date.UTC(2026, 0, 2, 3, 4, 5)],
    ['2026-01-02T03:04:05.250Z', Date.UTC(2026, 0, 2, 3, 4, 5, 250)],
    ['2026-01-02T05:04:05+02:00', Date.UTC(2026, 0, 2, 3, 4, 5)],
    ['2026-01-01T22:04:05-05:00', Date.UTC(2026, 0, 2, 3, 4, 5)],
    ['2028-02-29T00:00:00Z', Date.UTC(2028, 1, 29)],
  ])('parses %s', (text, expected) => {
    expect(parseRfc3339(text)).toBe(expected);
  });

  it.each([
    '2026-01-02',
    '2026-01-02T03:04Z',
    '2027-02-29T00:00:00Z',
    '2026-01-02T24:00:00Z',
    '2026-01-02T03:04:05+2:00',
    ' 2026-01-02T03:04:05Z',
    'Fri, 02 Jan 2026 03:04:05 GMT',
  ])('rejects %s', (text) => {
    expect(parseRfc3339(text)).toBeUndefined();
  });

  it.each([
    [{ by: 'created_at', order: 'desc', key: 1234, seq: 5 }],
    [{ by: 'updated_at', order: 'asc', key: 99, seq: 1 }],
    [{ by: 'title', order: 'asc', key: 'fix the build', seq: 2 }],
    [{ by: 'agent', order: 'desc', key: null, seq: 3 }],
  ] as const)('round-trips the cursor %j and rejects edited ones', (position) => {
    const cursor = encodeCursor(position);
    expect(decodeCursor(cursor)).toEqual(position);
    expect(decodeCursor(`${cursor}x`)).toBeUndefined();
    expect(decodeCursor('')).toBeUndefined();
  });

  it('makes titles from the first non-empty line', () => {
    expect(defaultTitle('\n \n  Hello world  \nsecond')).toBe('Hello world');
    expect(defaultTitle('x'.repeat(80))).toBe('x'.repeat(80));
    expect(defaultTitle('x'.repeat(81))).toBe(`${'x'.repeat(79)}…`);
  });
});
