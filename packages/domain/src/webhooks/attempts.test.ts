import { isSuccessfulAttempt, nextAttemptDelayMs, parseRetryAfter, RESPONSE_EXCERPT_BYTES, responseExcerpt } from './attempts';

describe('attempt decisions', () => {
  test('2xx without an error class is the only success', () => {
    expect(isSuccessfulAttempt({ responseStatus: 200, error: null })).toBe(true);
    expect(isSuccessfulAttempt({ responseStatus: 204, error: null })).toBe(true);
    expect(isSuccessfulAttempt({ responseStatus: 302, error: 'redirect' })).toBe(false);
    expect(isSuccessfulAttempt({ responseStatus: 500, error: 'http_error' })).toBe(false);
    expect(isSuccessfulAttempt({ responseStatus: 0, error: 'timeout' })).toBe(false);
  });

  const base = { retryAfterMaxMs: 60_000 };
  test('the planned delay, unless a 429/503 Retry-After asks for longer (up to the bound)', () => {
    expect(nextAttemptDelayMs({ ...base, responseStatus: 500, retryAfterMs: 30_000, plannedDelayMs: 200 })).toBe(200);
    expect(nextAttemptDelayMs({ ...base, responseStatus: 503, retryAfterMs: 30_000, plannedDelayMs: 200 })).toBe(30_000);
    expect(nextAttemptDelayMs({ ...base, responseStatus: 429, retryAfterMs: 999_999, plannedDelayMs: 200 })).toBe(60_000);
    expect(nextAttemptDelayMs({ ...base, responseStatus: 429, retryAfterMs: 1_000, plannedDelayMs: 5_000 })).toBe(5_000);
    expect(nextAttemptDelayMs({ ...base, responseStatus: 503, retryAfterMs: null, plannedDelayMs: 5_000 })).toBe(5_000);
    expect(nextAttemptDelayMs({ ...base, responseStatus: 503, retryAfterMs: 1_000, plannedDelayMs: null })).toBeNull();
  });

  test('Retry-After: delta-seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
  });

  test('response excerpts are at most 4 KB of UTF-8, without NUL', () => {
    expect(responseExcerpt(Buffer.from('ok\u0000!'))).toBe('ok!');
    const long = responseExcerpt(Buffer.from('é'.repeat(5000)));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(RESPONSE_EXCERPT_BYTES);
    expect(long.startsWith('éé')).toBe(true);
    expect(Buffer.byteLength(responseExcerpt(Buffer.alloc(10_000, 'a')))).toBe(RESPONSE_EXCERPT_BYTES);
  });
});
