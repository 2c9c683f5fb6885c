import { describe, expect, it } from 'vitest';
import { durationSyntaxHelp, formatDuration, parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['0ms', 0],
    ['250ms', 250],
    ['10s', 10_000],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['7d', 604_800_000],
    ['010s', 10_000],
  ])('%s → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '10', '10 s', '10S', '1.5h', '-1s', '1h30m', 's', '10sec', '10w', ' 10s', '99999999999999999d'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [1_500, '1500ms'],
    [90_000, '90s'],
    [900_000, '15m'],
    [7_200_000, '2h'],
    [604_800_000, '7d'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });
});

describe('durationSyntaxHelp', () => {
  it.each([
    ['10', /no unit/],
    ['1.5h', /whole number/],
    ['1h30m', /combines units/],
    ['soon', /<integer><ms\|s\|m\|h\|d>/],
  ])('%j → %s', (text, pattern) => {
    expect(durationSyntaxHelp(text)).toMatch(pattern);
  });
});
