import { createTask } from 'node-cron';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Slot } from '../core/ports/schedule-calendar.js';
import { cronCalendar } from './cron-calendar.js';

const ms = (iso: string): number => Date.parse(iso);
const iso = (slots: Slot[]): string[] => slots.map((slot) => new Date(slot.at).toISOString());
const keyed = (slots: Slot[]): [string, string][] => slots.map((slot) => [slot.key, new Date(slot.at).toISOString()]);

describe('cronCalendar next', () => {
  it.each([
    // Europe/Berlin: 2026-03-29 02:00 CET → 03:00 CEST (01:00Z); 2026-10-25 03:00 CEST → 02:00 CET (01:00Z).
    [
      'Europe/Berlin',
      '30 2 * * *',
      '2026-03-27T12:00:00Z',
      [
        ['2026-03-28T02:30:00', '2026-03-28T01:30:00.000Z'],
        ['2026-03-29T02:30:00', '2026-03-29T01:00:00.000Z'],
        ['2026-03-30T02:30:00', '2026-03-30T00:30:00.000Z'],
      ],
    ],
    [
      'Europe/Berlin',
      '30 2 * * *',
      '2026-10-23T12:00:00Z',
      [
        ['2026-10-24T02:30:00', '2026-10-24T00:30:00.000Z'],
        ['2026-10-25T02:30:00', '2026-10-25T00:30:00.000Z'],
        ['2026-10-26T02:30:00', '2026-10-26T01:30:00.000Z'],
      ],
    ],
    // Both change days are Sundays: Friday in one offset, Monday in the other.
    [
      'Europe/Berlin',
      '0 3 * * 1-5',
      '2026-03-26T12:00:00Z',
      [
        ['2026-03-27T03:00:00', '2026-03-27T02:00:00.000Z'],
        ['2026-03-30T03:00:00', '2026-03-30T01:00:00.000Z'],
      ],
    ],
    [
      'Europe/Berlin',
      '0 3 * * 1-5',
      '2026-10-22T12:00:00Z',
      [
        ['2026-10-23T03:00:00', '2026-10-23T01:00:00.000Z'],
        ['2026-10-26T03:00:00', '2026-10-26T02:00:00.000Z'],
      ],
    ],
    // 03:00 is the gap end in spring and exists once in autumn.
    [
      'Europe/Berlin',
      '0 3 * * *',
      '2026-03-28T12:00:00Z',
      [
        ['2026-03-29T03:00:00', '2026-03-29T01:00:00.000Z'],
        ['2026-03-30T03:00:00', '2026-03-30T01:00:00.000Z'],
      ],
    ],
    [
      'Europe/Berlin',
      '0 3 * * *',
      '2026-10-24T12:00:00Z',
      [
        ['2026-10-25T03:00:00', '2026-10-25T02:00:00.000Z'],
        ['2026-10-26T03:00:00', '2026-10-26T02:00:00.000Z'],
      ],
    ],
    // Four skipped local times collapse into one slot keyed by the first.
    [
      'Europe/Berlin',
      '*/15 2 * * *',
      '2026-03-28T01:40:00Z',
      [
        ['2026-03-28T02:45:00', '2026-03-28T01:45:00.000Z'],
        ['2026-03-29T02:00:00', '2026-03-29T01:00:00.000Z'],
        ['2026-03-30T02:00:00', '2026-03-30T00:00:00.000Z'],
        ['2026-03-30T02:15:00', '2026-03-30T00:15:00.000Z'],
      ],
    ],
    [
      'Europe/Berlin',
      '*/15 2 * * *',
      '2026-10-24T23:59:59Z',
      [
        ['2026-10-25T02:00:00', '2026-10-25T00:00:00.000Z'],
        ['2026-10-25T02:15:00', '2026-10-25T00:15:00.000Z'],
        ['2026-10-25T02:30:00', '2026-10-25T00:30:00.000Z'],
        ['2026-10-25T02:45:00', '2026-10-25T00:45:00.000Z'],
        ['2026-10-26T02:00:00', '2026-10-26T01:00:00.000Z'],
      ],
    ],
    // The gap end 03:00 is itself a slot, so it covers the skipped 02:xx: no extra slot.
    [
      'Europe/Berlin',
      '*/15 * * * *',
      '2026-03-29T00:30:00Z',
      [
        ['2026-03-29T01:45:00', '2026-03-29T00:45:00.000Z'],
        ['2026-03-29T03:00:00', '2026-03-29T01:00:00.000Z'],
        ['2026-03-29T03:15:00', '2026-03-29T01:15:00.000Z'],
      ],
    ],
    [
      'Europe/Berlin',
      '*/15 * * * *',
      '2026-10-25T00:30:00Z',
      [
        ['2026-10-25T02:45:00', '2026-10-25T00:45:00.000Z'],
        ['2026-10-25T03:00:00', '2026-10-25T02:00:00.000Z'],
        ['2026-10-25T03:15:00', '2026-10-25T02:15:00.000Z'],
      ],
    ],
    // `after` inside the second pass of the repeated hour: the repeated walls already fired.
    ['Europe/Berlin', '*/15 * * * *', '2026-10-25T01:10:00Z', [['2026-10-25T03:00:00', '2026-10-25T02:00:00.000Z']]],
    // America/New_York: 2026-03-08 02:00 EST → 03:00 EDT (07:00Z); 2026-11-01 02:00 EDT → 01:00 EST (06:00Z).
    [
      'America/New_York',
      '30 2 * * *',
      '2026-03-06T12:00:00Z',
      [
        ['2026-03-07T02:30:00', '2026-03-07T07:30:00.000Z'],
        ['2026-03-08T02:30:00', '2026-03-08T07:00:00.000Z'],
        ['2026-03-09T02:30:00', '2026-03-09T06:30:00.000Z'],
      ],
    ],
    // New York repeats 01:xx, so 02:30 exists once on 2026-11-01.
    [
      'America/New_York',
      '30 2 * * *',
      '2026-10-30T12:00:00Z',
      [
        ['2026-10-31T02:30:00', '2026-10-31T06:30:00.000Z'],
        ['2026-11-01T02:30:00', '2026-11-01T07:30:00.000Z'],
        ['2026-11-02T02:30:00', '2026-11-02T07:30:00.000Z'],
      ],
    ],
    [
      'America/New_York',
      '30 1 * * *',
      '2026-10-30T12:00:00Z',
      [
        ['2026-10-31T01:30:00', '2026-10-31T05:30:00.000Z'],
        ['2026-11-01T01:30:00', '2026-11-01T05:30:00.000Z'],
        ['2026-11-02T01:30:00', '2026-11-02T06:30:00.000Z'],
      ],
    ],
    [
      'UTC',
      '0 9 * * 1',
      '2026-01-01T00:00:00Z',
      [
        ['2026-01-05T09:00:00', '2026-01-05T09:00:00.000Z'],
        ['2026-01-12T09:00:00', '2026-01-12T09:00:00.000Z'],
      ],
    ],
    // 6 fields: leading seconds.
    [
      'UTC',
      '*/20 * * * * *',
      '2026-01-01T00:00:00Z',
      [
        ['2026-01-01T00:00:20', '2026-01-01T00:00:20.000Z'],
        ['2026-01-01T00:00:40', '2026-01-01T00:00:40.000Z'],
        ['2026-01-01T00:01:00', '2026-01-01T00:01:00.000Z'],
      ],
    ],
    [
      'Europe/Berlin',
      '30 30 2 * * *',
      '2026-03-28T12:00:00Z',
      [
        ['2026-03-29T02:30:30', '2026-03-29T01:00:00.000Z'],
        ['2026-03-30T02:30:30', '2026-03-30T00:30:30.000Z'],
      ],
    ],
    // Day of month AND day of week (node-cron), not Vixie's OR: Friday the 13th, not every Friday.
    [
      'UTC',
      '0 0 13 * 5',
      '2026-01-01T00:00:00Z',
      [
        ['2026-02-13T00:00:00', '2026-02-13T00:00:00.000Z'],
        ['2026-03-13T00:00:00', '2026-03-13T00:00:00.000Z'],
        ['2026-11-13T00:00:00', '2026-11-13T00:00:00.000Z'],
      ],
    ],
    ['UTC', '0 12 * * 7', '2026-01-01T00:00:00Z', [['2026-01-04T12:00:00', '2026-01-04T12:00:00.000Z']]],
    [
      'UTC',
      '0 0 29 2 *',
      '2026-01-01T00:00:00Z',
      [
        ['2028-02-29T00:00:00', '2028-02-29T00:00:00.000Z'],
        ['2032-02-29T00:00:00', '2032-02-29T00:00:00.000Z'],
      ],
    ],
    // 2100 is no leap year: the longest wait, eight years.
    ['UTC', '0 0 29 2 *', '2096-03-01T00:00:00Z', [['2104-02-29T00:00:00', '2104-02-29T00:00:00.000Z']]],
    ['Asia/Tokyo', '0 9 * * *', '2026-01-01T00:00:00Z', [['2026-01-02T09:00:00', '2026-01-02T00:00:00.000Z']]],
  ] as const)('%s %s after %s', (zone, cron, after, expected) => {
    expect(keyed(cronCalendar(cron, zone).next(ms(after), expected.length))).toEqual(expected);
  });

  it('is strict: a slot exactly at `after` is not returned', () => {
    expect(iso(cronCalendar('0 * * * *', 'UTC').next(ms('2026-05-01T10:00:00Z'), 1))).toEqual(['2026-05-01T11:00:00.000Z']);
  });

  it.each([
    // Feb 29 on a Monday next comes in 2044: beyond the eight-year horizon, so nothing.
    ['0 0 29 2 1', 1, []],
    ['0 0 31 * *', 0, []],
    // The horizon restarts after each slot found.
    ['0 0 29 2 *', 3, ['2028-02-29T00:00:00.000Z', '2032-02-29T00:00:00.000Z', '2036-02-29T00:00:00.000Z']],
  ] as const)('%s: next %i stops after eight idle years', (cron, count, expected) => {
    expect(iso(cronCalendar(cron, 'UTC').next(ms('2026-01-01T00:00:00Z'), count))).toEqual(expected);
  });

  it.each([
    ['not a cron', 'UTC', /invalid cron expression "not a cron"/],
    ['0 0 30 2 *', 'UTC', /invalid cron expression/],
    ['0 0 * * *', 'Mars/Olympus', /unknown timezone "Mars\/Olympus"/],
  ])('rejects %s in %s', (cron, zone, message) => {
    expect(() => cronCalendar(cron, zone)).toThrow(message);
  });
});

describe('cronCalendar between', () => {
  it.each([
    [
      'Europe/Berlin',
      '30 2 * * *',
      '2026-03-27T00:00:00Z',
      '2026-03-31T00:00:00Z',
      10,
      ['2026-03-27T01:30:00.000Z', '2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z'],
    ],
    // `limit` keeps the latest slots.
    ['Europe/Berlin', '30 2 * * *', '2026-03-27T00:00:00Z', '2026-03-31T00:00:00Z', 2, ['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']],
    // from is exclusive, to inclusive.
    ['Europe/Berlin', '30 2 * * *', '2026-03-28T01:30:00Z', '2026-03-29T01:00:00Z', 10, ['2026-03-29T01:00:00.000Z']],
    [
      'Europe/Berlin',
      '30 2 * * *',
      '2026-10-23T00:00:00Z',
      '2026-10-27T00:00:00Z',
      10,
      ['2026-10-23T00:30:00.000Z', '2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z'],
    ],
    [
      'Europe/Berlin',
      '* * * * *',
      '2026-03-29T00:58:00Z',
      '2026-03-29T01:01:00Z',
      10,
      ['2026-03-29T00:59:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-29T01:01:00.000Z'],
    ],
    ['Europe/Berlin', '*/30 * * * *', '2026-10-25T00:00:00Z', '2026-10-25T02:00:00Z', 10, ['2026-10-25T00:30:00.000Z', '2026-10-25T02:00:00.000Z']],
    // `to` in the second pass of the repeated hour: wall 02:30 is later than wall(to) 02:10 yet fired before.
    [
      'Europe/Berlin',
      '*/30 * * * *',
      '2026-10-24T23:00:00Z',
      '2026-10-25T01:10:00Z',
      10,
      ['2026-10-24T23:30:00.000Z', '2026-10-25T00:00:00.000Z', '2026-10-25T00:30:00.000Z'],
    ],
    [
      'America/New_York',
      '30 2 * * *',
      '2026-03-01T00:00:00Z',
      '2026-03-09T12:00:00Z',
      3,
      ['2026-03-07T07:30:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z'],
    ],
    // Catch-up over three weeks of a per-minute schedule costs only `limit` slots.
    [
      'UTC',
      '* * * * *',
      '2026-01-10T00:00:00Z',
      '2026-02-01T00:00:00Z',
      3,
      ['2026-01-31T23:58:00.000Z', '2026-01-31T23:59:00.000Z', '2026-02-01T00:00:00.000Z'],
    ],
    ['UTC', '0 0 29 2 *', '2020-01-01T00:00:00Z', '2026-06-01T00:00:00Z', 5, ['2020-02-29T00:00:00.000Z', '2024-02-29T00:00:00.000Z']],
    ['UTC', '0 * * * *', '2026-01-01T00:00:00Z', '2026-01-01T00:59:59Z', 5, []],
    ['UTC', '0 * * * *', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', 0, []],
  ] as const)('%s %s in (%s, %s] limit %i', (zone, cron, from, to, limit, expected) => {
    expect(iso(cronCalendar(cron, zone).between(ms(from), ms(to), limit))).toEqual(expected);
  });

  it.each([
    // Local days: 23 h in spring (02:xx skipped, covered by 03:00), 25 h in autumn (02:xx once).
    ['2026-03-28T22:59:59Z', '2026-03-29T21:59:59Z', 92],
    ['2026-10-24T21:59:59Z', '2026-10-25T22:59:59Z', 96],
  ])('one local day of */15 in Berlin from %s has %i slots', (from, to, count) => {
    const slots = cronCalendar('*/15 * * * *', 'Europe/Berlin').between(ms(from), ms(to), 1000);
    expect(slots).toHaveLength(count);
    expect(slots[0]?.key.slice(11)).toBe('00:00:00');
    expect(slots.at(-1)?.key.slice(11)).toBe('23:45:00');
    expect(slots.some((slot) => slot.key.includes('T02:'))).toBe(count === 96);
  });

  it('is fast for a per-second schedule over a month', () => {
    const started = performance.now();
    const slots = cronCalendar('* * * * * *', 'Europe/Berlin').between(ms('2026-03-01T00:00:00Z'), ms('2026-04-01T00:00:00Z'), 5);
    expect(iso(slots)).toEqual([
      '2026-03-31T23:59:56.000Z',
      '2026-03-31T23:59:57.000Z',
      '2026-03-31T23:59:58.000Z',
      '2026-03-31T23:59:59.000Z',
      '2026-04-01T00:00:00.000Z',
    ]);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('slot keys', () => {
  it.each([
    ['Europe/Berlin', '2026-03-26T00:00:00Z', '2026-04-02T00:00:00Z'],
    ['Europe/Berlin', '2026-10-22T00:00:00Z', '2026-10-29T00:00:00Z'],
    ['America/New_York', '2026-03-05T00:00:00Z', '2026-03-12T00:00:00Z'],
    ['America/New_York', '2026-10-29T00:00:00Z', '2026-11-05T00:00:00Z'],
  ])('are unique, ordered and stable in %s from %s to %s', (zone, fromIso, toIso) => {
    const cron = '*/15 * * * *';
    const from = ms(fromIso);
    const to = ms(toIso);
    const all = cronCalendar(cron, zone).between(from, to, 100_000);
    expect(new Set(all.map((slot) => slot.key)).size).toBe(all.length);
    for (let i = 1; i < all.length; i++) expect(all[i]!.at).toBeGreaterThan(all[i - 1]!.at);
    // The same slots whether asked forward, backward or by a fresh calendar.
    expect(cronCalendar(cron, zone).next(from, all.length)).toEqual(all);
    expect(cronCalendar(cron, zone).between(from, to, 100_000)).toEqual(all);
  });
});

describe('agreement with node-cron where no daylight-saving change happens', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const expressions = [
    '* * * * *',
    '*/7 * * * *',
    '0 3 * * 1-5',
    '30 2 * * *',
    '0 0 13 * 5',
    '0 0 1,15 * 1',
    '15,45 */5 * * *',
    '0 12 * jan,jul sun',
    '0 0 * * 7',
    '5-10/2 8-17 * * 1-5',
    '*/20 * * * * *',
    '0 0 29 2 *',
    '0 22 * * 5-1',
    '59 23 31 * *',
    '10 0 0 1 1 *',
  ];
  const cases = ['UTC', 'Asia/Tokyo'].flatMap((zone) =>
    ['2026-01-01T00:00:00Z', '2026-03-28T12:34:56Z'].flatMap((base) => expressions.map((cron) => [zone, base, cron] as const)),
  );

  it.each(cases)('%s from %s: %s', (zone, base, cron) => {
    vi.useFakeTimers();
    vi.setSystemTime(ms(base));
    const task = createTask(cron, () => undefined, { timezone: zone });
    const count = cron.includes('29 2') || cron.includes('1 1 *') ? 3 : 25;
    const theirs = task.getNextRuns(count).map((date) => date.toISOString());
    void task.destroy();
    expect(iso(cronCalendar(cron, zone).next(ms(base), count))).toEqual(theirs);
  });
});
