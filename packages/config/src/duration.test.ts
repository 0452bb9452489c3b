import { DurationError, MAX_DURATION_MS, formatDuration, parseDuration, tryParseDuration } from './duration';

describe('parseDuration', () => {
  test.each([
    ['500ms', 500],
    ['1ms', 1],
    ['30s', 30_000],
    ['5m', 300_000],
    ['2h', 7_200_000],
    ['7d', 604_800_000],
    ['1m30s', 90_000],
    ['1h30m', 5_400_000],
    ['1d2h3m4s5ms', 86_400_000 + 7_200_000 + 180_000 + 4_000 + 5],
    ['1h 30m', 5_400_000],
    ['  45s  ', 45_000],
    ['1.5h', 5_400_000],
    ['0.5s', 500],
    ['0s1ms', 1],
    ['1m0s', 60_000],
    ['365d', MAX_DURATION_MS],
    ['0.1h', 360_000],
  ])('%j → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  test.each([
    [''],
    ['   '],
    ['30'], // no unit
    ['s'],
    ['ms'],
    ['30 s'], // space between number and unit
    ['30sec'],
    ['30S'], // units are lower-case
    ['1w'],
    ['-5s'],
    ['+5s'],
    ['5s-'],
    ['.5s'],
    ['1e3ms'],
    ['30s1m'], // wrong order
    ['1m1m'], // repeated unit
    ['1s500ms500ms'],
    ['1h30'],
    ['PT30S'],
    ['NaNs'],
    ['Infinityms'],
    ['1,5h'],
    ['30s;rm -rf'],
  ])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow(DurationError);
  });

  test('rejects zero, however written', () => {
    for (const t of ['0s', '0ms', '0d0h', '0.0s']) {
      expect(() => parseDuration(t)).toThrow('greater than zero');
    }
  });

  test('rejects fractions of a millisecond', () => {
    expect(() => parseDuration('0.5ms')).toThrow('whole number of milliseconds');
    expect(() => parseDuration('1.0001s')).toThrow('whole number of milliseconds');
  });

  test('rejects absurd values above 365 days', () => {
    expect(() => parseDuration('366d')).toThrow('at most 365d');
    expect(() => parseDuration('365d1ms')).toThrow(DurationError);
    expect(() => parseDuration('99999999999999999999d')).toThrow(DurationError);
    expect(() => parseDuration('9000h')).toThrow(DurationError);
  });

  test('honours a smaller maximum, never a larger one', () => {
    expect(parseDuration('5m', { maxMs: 300_000 })).toBe(300_000);
    expect(() => parseDuration('5m1ms', { maxMs: 300_000 })).toThrow('at most 5m');
    expect(() => parseDuration('400d', { maxMs: 1000 * MAX_DURATION_MS })).toThrow(DurationError);
  });

  test('rejects non-strings and overly long text', () => {
    expect(() => parseDuration(30 as unknown as string)).toThrow(DurationError);
    expect(() => parseDuration(null as unknown as string)).toThrow(DurationError);
    expect(() => parseDuration('1s'.repeat(40))).toThrow(DurationError);
  });

  test('tryParseDuration returns null instead of throwing', () => {
    expect(tryParseDuration('2h')).toBe(7_200_000);
    expect(tryParseDuration('2 hours')).toBeNull();
    expect(tryParseDuration(undefined)).toBeNull();
  });

  test('formatDuration round-trips', () => {
    for (const t of ['500ms', '30s', '1m30s', '2h', '7d', '1d2h3m4s5ms']) {
      expect(formatDuration(parseDuration(t))).toBe(t);
    }
    expect(formatDuration(0)).toBe('0ms');
  });
});
