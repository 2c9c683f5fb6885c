import { describe, expect, it } from 'vitest';
import { cronProblems } from './cron.js';

describe('cronProblems', () => {
  it.each([
    '* * * * *',
    '0 3 * * 1-5',
    '*/15 * * * *',
    '0-30/10 * * * *',
    '0 0 1,15 * *',
    '0 9 * jan-mar mon',
    '0 9 * * Monday-Friday',
    '0 0 1 January *',
    '0 0 * * 7',
    '0 0 * * SUN',
    '0 0 29 2 *',
    '30 0 9 * * mon',
    '*/10 * * * * *',
    '  0 3 * * *  ',
  ])('accepts %j', (expression) => {
    expect(cronProblems(expression)).toEqual([]);
  });

  it.each([
    ['', /is empty/],
    ['* * * *', /has 4 fields/],
    ['* * * * * * *', /has 7 fields/],
    ['@daily', /macros/],
    ['60 * * * *', /minute "60" is out of range 0–59/],
    ['* 24 * * *', /hour "24" is out of range 0–23/],
    ['* * 0 * *', /day of month "0" is out of range 1–31/],
    ['* * 32 * *', /day of month "32"/],
    ['* * * 13 *', /month "13" is out of range 1–12/],
    ['* * * foo *', /month "foo" is neither/],
    ['* * * * 8', /day of week "8" is out of range 0–7/],
    ['* * * * fry', /day of week "fry" is neither/],
    ['60 * * * * *', /second "60" is out of range 0–59/],
    ['*/0 * * * *', /step "\/0"/],
    ['*/61 * * * *', /step "\/61"/],
    ['5/15 * * * *', /write 5-59\/15/],
    ['10-5 * * * *', /runs backwards/],
    ['1,,2 * * * *', /empty list element/],
    ['1-2-3 * * * *', /not a value, a range/],
    ['*/5/2 * * * *', /more than one "\/"/],
    ['a * * * *', /minute "a" is not a number/],
    ['? * * * *', /minute "\?" is not a number/],
    ['0 0 L * *', /day of month "L"/],
    ['0 0 31 2 *', /never fires/],
  ])('rejects %j', (expression, pattern) => {
    const problems = cronProblems(expression);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join('; ')).toMatch(pattern);
  });

  it('reports every wrong field, not only the first', () => {
    expect(cronProblems('61 25 * * *')).toEqual(['minute "61" is out of range 0–59', 'hour "25" is out of range 0–23']);
  });
});
