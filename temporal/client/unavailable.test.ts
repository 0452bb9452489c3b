import { isTemporalUnavailable } from './unavailable';

describe('isTemporalUnavailable', () => {
  it('recognises gRPC UNAVAILABLE and DEADLINE_EXCEEDED, also as the cause of an SDK error', () => {
    expect(isTemporalUnavailable(Object.assign(new Error('14 UNAVAILABLE: connection refused'), { code: 14 }))).toBe(true);
    expect(isTemporalUnavailable(new Error('ServiceError', { cause: Object.assign(new Error('deadline'), { code: 4 }) }))).toBe(true);
  });
  it('leaves other failures alone', () => {
    expect(isTemporalUnavailable(Object.assign(new Error('5 NOT_FOUND'), { code: 5 }))).toBe(false);
    expect(isTemporalUnavailable(new Error('boom'))).toBe(false);
    expect(isTemporalUnavailable(null)).toBe(false);
  });
});
