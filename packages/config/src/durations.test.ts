import { loadConfig } from './config';
import { parseConfigDuration } from './durations';

describe('webhook configuration', () => {
  test('durations', () => {
    expect(parseConfigDuration('200ms')).toBe(200);
    expect(parseConfigDuration('6h25m')).toBe(6 * 3_600_000 + 25 * 60_000);
    expect(parseConfigDuration('1d')).toBe(86_400_000);
    expect(parseConfigDuration('0s')).toBeNull();
    expect(parseConfigDuration('5 minutes')).toBeNull();
    expect(parseConfigDuration('')).toBeNull();
  });

  test('the default retry schedule spans about 24 hours; tests can compress it', () => {
    const c = loadConfig({});
    const total = c.WEBHOOK_RETRY_SCHEDULE.reduce((a, b) => a + b, 0);
    expect(c.WEBHOOK_RETRY_SCHEDULE[0]).toBe(5_000);
    expect(Math.abs(total - 86_400_000)).toBeLessThan(60_000);
    expect(c.WEBHOOK_TIMEOUT_MS).toBe(15_000);
    expect(c.WEBHOOK_SECRET_OVERLAP_MS).toBe(86_400_000);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '200ms, 200ms,400ms' }).WEBHOOK_RETRY_SCHEDULE).toEqual([200, 200, 400]);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '200ms,soon' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
  });
});
