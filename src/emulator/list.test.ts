import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunPage } from '../core/ports/agent-runs.js';
import { encodeCursor } from './cursor.js';
import { startEmulator, type RunningEmulator } from './index.js';

const KEY = 'list-key';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');

let emu: RunningEmulator;
let now = T0;

/** A page of runs, or the problem (its `detail`) a refused query gets. */
type ListBody = Partial<RunPage> & { detail?: string };

async function list(query = ''): Promise<{ status: number; body: ListBody }> {
  const res = await fetch(`${emu.baseUrl}/agent/runs${query ? `?${query}` : ''}`, {
    headers: { authorization: `Bearer ${KEY}` },
  });
  return { status: res.status, body: (await res.json()) as ListBody };
}

/** The body as a page of runs; throws when it is not one. */
function page(body: ListBody): RunPage {
  if (!body.runs || !body.page_info) throw new Error(`not a page of runs: ${JSON.stringify(body)}`);
  return { runs: body.runs, page_info: body.page_info };
}

async function ids(query = ''): Promise<string[]> {
  const answer = await list(query);
  expect(answer.status).toBe(200);
  return page(answer.body).runs.map((r) => r.run_id);
}

/** Creates a run at `at` (ms after T0). */
function createAt(at: number, prompt = 'p', config?: Record<string, unknown>): string {
  now = T0 + at;
  return emu.engine.createRun(config ? { prompt, config } : { prompt }).run_id;
}

beforeEach(async () => {
  now = T0;
  emu = await startEmulator({ apiKey: KEY, manual: true, clock: { now: () => new Date(now) } });
});

afterEach(async () => {
  await emu.close();
});

describe('filters', () => {
  it('lists newest first, ties broken by creation order', async () => {
    const a = createAt(0);
    const b = createAt(1000);
    const c = createAt(1000);
    const d = createAt(500);
    expect(await ids()).toEqual([c, b, d, a]);
    const answer = await list();
    expect(answer.body.page_info).toEqual({ has_next_page: false });
  });

  it('filters by repeatable state', async () => {
    const queued = createAt(0);
    const working = createAt(1);
    const done = createAt(2);
    emu.engine.drive(working, 'INPROGRESS');
    emu.engine.drive(done, 'SUCCEEDED');
    expect(await ids('state=QUEUED&state=INPROGRESS')).toEqual([working, queued]);
    expect(await ids('state=SUCCEEDED')).toEqual([done]);
    expect(await ids('state=BLOCKED')).toEqual([]);
  });

  it('filters by name, model_id, source and creator', async () => {
    const slack = createAt(0, 'p', { name: 'slack', model_id: 'big' });
    const linear = createAt(1, 'p', { name: 'linear', model_id: 'small' });
    const plain = createAt(2);
    const factory = emu.engine.createFactoryRun('fac', { prompt: 'f' }).run_id;
    expect(await ids('name=slack')).toEqual([slack]);
    expect(await ids('model_id=small')).toEqual([linear]);
    expect(await ids('source=API')).toEqual([plain, linear, slack]);
    expect(await ids('source=FACTORY')).toEqual([factory]);
    const creator = (emu.engine.get(slack)?.creator as { uid: string }).uid;
    expect(await ids(`creator=${creator}`)).toHaveLength(4);
    expect(await ids('creator=someone_else')).toEqual([]);
    expect(await ids('name=slack&model_id=small')).toEqual([]);
  });

  it('windows by created_after (inclusive) and created_before (exclusive)', async () => {
    const first = createAt(0);
    const second = createAt(60_000);
    const third = createAt(120_000);
    expect(await ids('created_after=2026-03-01T10:01:00Z')).toEqual([third, second]);
    expect(await ids('created_before=2026-03-01T10:01:00Z')).toEqual([first]);
    expect(await ids('created_after=2026-03-01T10:00:30Z&created_before=2026-03-01T10:02:00.000Z')).toEqual([second]);
    // The same instant with an offset and a fraction.
    expect(await ids('created_after=2026-03-01T11:01:00.000%2B01:00')).toEqual([third, second]);
  });

  it('selects by updated_after strictly', async () => {
    const a = createAt(0);
    const b = createAt(0);
    now = T0 + 5000;
    emu.engine.drive(a, 'INPROGRESS');
    const updated = emu.engine.get(a)?.updated_at ?? '';
    expect(updated).toBe('2026-03-01T10:00:05.000Z');
    expect(await ids('updated_after=2026-03-01T10:00:04.999Z')).toEqual([a]);
    expect(await ids(`updated_after=${updated}`)).toEqual([]);
    expect(await ids('updated_after=2026-03-01T09:59:59Z')).toEqual([b, a]);
  });
});

describe('orders', () => {
  it('sorts by agent (skill spec) with runs without a skill last, in both directions', async () => {
    const plain = createAt(0);
    const beta = createAt(1, 'p', { skill_spec: 'acme/x:beta' });
    const alpha = createAt(2, 'p', { skill_spec: 'acme/x:Alpha' });
    const other = createAt(3);
    expect(await ids('sort_by=agent')).toEqual([alpha, beta, plain, other]);
    expect(await ids('sort_by=agent&sort_order=desc')).toEqual([beta, alpha, other, plain]);
    expect(await ids('sort_order=asc')).toEqual([plain, beta, alpha, other]);
  });

  it('pages through a title order without repeating or missing runs that share a title', async () => {
    const made = ['b', 'a', 'b', 'a', 'c'].map((title, i) => ({ id: createAt(i, title), title }));
    const seen: string[] = [];
    let cursor = '';
    do {
      const answer = await list(`sort_by=title&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      const current = page(answer.body);
      seen.push(...current.runs.map((r) => r.run_id));
      cursor = current.page_info.next_cursor ?? '';
    } while (cursor);
    const expected = [...made].sort((x, y) => x.title.localeCompare(y.title)).map((run) => run.id);
    expect(seen).toEqual(expected);
  });
});

describe('pagination', () => {
  it('walks several pages with opaque cursors: no duplicates, none missed', async () => {
    const created: string[] = [];
    // Several runs share a created_at, so the cursor must break ties.
    for (let i = 0; i < 23; i++) created.push(createAt(Math.floor(i / 3) * 1000));
    const expected = [...created].reverse();

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const answer = await list(`limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(answer.status).toBe(200);
      pages++;
      const current = page(answer.body);
      seen.push(...current.runs.map((r) => r.run_id));
      const info = current.page_info;
      if (info.has_next_page) {
        expect(typeof info.next_cursor).toBe('string');
        cursor = info.next_cursor ?? undefined;
      } else {
        expect(info.next_cursor).toBeUndefined();
        cursor = undefined;
      }
      // Runs created between two pages are newer and must not shift later pages.
      if (pages === 2) createAt(100_000);
    } while (cursor);

    expect(pages).toBe(5);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expected);
  });

  it('keeps the filters across pages', async () => {
    for (let i = 0; i < 6; i++) createAt(i, 'p', { name: i % 2 ? 'odd' : 'even' });
    const first = await list('name=odd&limit=2');
    expect(first.body.runs).toHaveLength(2);
    const second = await list(`name=odd&limit=2&cursor=${encodeURIComponent(page(first.body).page_info.next_cursor ?? '')}`);
    expect(second.body.runs).toHaveLength(1);
    expect(second.body.page_info?.has_next_page).toBe(false);
  });

  it('defaults to 50 and allows 500', async () => {
    for (let i = 0; i < 55; i++) createAt(i);
    expect((await list()).body.runs).toHaveLength(50);
    expect((await list('limit=500')).body.runs).toHaveLength(55);
  });
});

describe('bad queries', () => {
  const valid = encodeCursor({ by: 'created_at', order: 'desc', key: T0, seq: 3 });
  const [payload = '', signature = ''] = valid.split('.');
  const forged = `${Buffer.from(JSON.stringify({ v: 2, b: 'created_at', o: 'desc', k: T0, s: 99 })).toString('base64url')}.${signature}`;
  const byTitle = encodeCursor({ by: 'title', order: 'asc', key: 'p', seq: 3 });

  it.each([
    ['limit=0', 'limit'],
    ['limit=501', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=', 'limit'],
    ['limit=5&limit=6', 'limit'],
    ['cursor=not-a-cursor', 'cursor'],
    [`cursor=${payload}`, 'cursor'],
    [`cursor=${encodeURIComponent(forged)}`, 'cursor'],
    [`cursor=${payload}.${signature.slice(0, -2)}AA`, 'cursor'],
    ['created_after=2026-01-02', 'created_after'],
    ['created_after=yesterday', 'created_after'],
    ['created_before=2026-01-02T03:04:05', 'created_before'],
    ['created_before=2026-01-02 03:04:05Z', 'created_before'],
    ['updated_after=2026-13-02T03:04:05Z', 'updated_after'],
    ['updated_after=2026-02-30T03:04:05Z', 'updated_after'],
    ['updated_after=1767323045', 'updated_after'],
    ['state=DONE', 'state'],
    ['state=queued', 'state'],
    ['state=QUEUED&state=NOPE', 'state'],
    ['state=QUEUED,INPROGRESS', 'state'],
    ['name=', 'name'],
    [`cursor=${encodeURIComponent(byTitle)}`, 'cursor'],
    [`cursor=${encodeURIComponent(byTitle)}&sort_by=title&sort_order=desc`, 'cursor'],
    ['sort_by=size', 'sort_by'],
    ['sort_by=TITLE', 'sort_by'],
    ['sort_order=up', 'sort_order'],
    ['sort_by=title&sort_by=agent', 'sort_by'],
    ['artifact_type=VIDEO', 'artifact_type'],
    ['source=FAX', 'source'],
    ['q=', 'q'],
    ['environment_id=', 'environment_id'],
    ['schedule_id=', 'schedule_id'],
    ['skill_spec=', 'skill_spec'],
    ['skill=a:b&skill_spec=c:d', 'skill'],
  ])('%s → 400 naming %s', async (query, parameter) => {
    const answer = await list(query);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ status: 400, error: 'invalid_request', retryable: false });
    expect(answer.body.detail?.startsWith(parameter)).toBe(true);
  });

  it('states the limit rule exactly', async () => {
    expect((await list('limit=0')).body.detail).toBe('limit must be an integer from 1 to 500');
  });

  it.each([
    '2026-01-02T03:04:05Z',
    '2026-01-02t03:04:05z',
    '2026-01-02T03:04:05.123Z',
    '2026-01-02T03:04:05.123456789Z',
    '2026-01-02T03:04:05%2B05:30',
    '2026-01-02T03:04:05.5-08:00',
  ])('accepts %s', async (timestamp) => {
    expect((await list(`updated_after=${timestamp}`)).status).toBe(200);
  });

  it('accepts a valid cursor, with the order it was made for', async () => {
    expect((await list(`cursor=${encodeURIComponent(valid)}`)).status).toBe(200);
    expect((await list(`cursor=${encodeURIComponent(byTitle)}&sort_by=title`)).status).toBe(200);
  });
});
