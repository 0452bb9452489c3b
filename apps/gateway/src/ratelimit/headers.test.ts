import { formatPolicyHeader, formatRateLimitHeader, mostConstraining, rateLimitHeaders, resetSeconds } from './headers';
import type { Policy, PolicyState } from './headers';

const key: Policy = { name: 'key', quota: 600, windowSeconds: 60 };
const workspace: Policy = { name: 'workspace', quota: 1200, windowSeconds: 60 };

describe('RateLimit header fields', () => {
  it('lists every policy in RateLimit-Policy as quoted names with q and w', () => {
    expect(formatPolicyHeader([key, workspace])).toBe('"key";q=600;w=60, "workspace";q=1200;w=60');
    expect(formatPolicyHeader([{ name: 'ip', quota: 300, windowSeconds: 60 }])).toBe('"ip";q=300;w=60');
  });

  it('reports r and t (whole seconds, rounded up, never past the window) in RateLimit', () => {
    expect(formatRateLimitHeader({ policy: key, remaining: 599, msBeforeReset: 41_200 })).toBe('"key";r=599;t=42');
    expect(formatRateLimitHeader({ policy: key, remaining: -3, msBeforeReset: 0 })).toBe('"key";r=0;t=0');
    expect(resetSeconds({ policy: key, remaining: 1, msBeforeReset: 60_000 })).toBe(60);
    expect(resetSeconds({ policy: key, remaining: 1, msBeforeReset: 61_500 })).toBe(60);
    expect(resetSeconds({ policy: key, remaining: 1, msBeforeReset: -1 })).toBe(0);
  });

  it('picks the policy with the least remaining, and on a tie the one that resets last', () => {
    const k: PolicyState = { policy: key, remaining: 10, msBeforeReset: 30_000 };
    const w: PolicyState = { policy: workspace, remaining: 4, msBeforeReset: 10_000 };
    expect(mostConstraining([k, w])).toBe(w);
    expect(mostConstraining([k, { ...w, remaining: 11 }])).toBe(k);
    const tie = { ...w, remaining: 10, msBeforeReset: 50_000 };
    expect(mostConstraining([k, tie])).toBe(tie);
    expect(mostConstraining([k, { ...tie, msBeforeReset: 1_000 }])).toBe(k);
    expect(() => mostConstraining([])).toThrow();
  });

  it('adds Retry-After, at least 1 second, only to a refusal', () => {
    const state: PolicyState = { policy: key, remaining: 0, msBeforeReset: 12_001 };
    expect(rateLimitHeaders([key, workspace], state)).toEqual({
      'RateLimit-Policy': '"key";q=600;w=60, "workspace";q=1200;w=60',
      RateLimit: '"key";r=0;t=13',
    });
    expect(rateLimitHeaders([key, workspace], state, true)['Retry-After']).toBe('13');
    expect(rateLimitHeaders([key], { ...state, msBeforeReset: 10 }, true)['Retry-After']).toBe('1');
    expect(rateLimitHeaders([key], { ...state, msBeforeReset: 0 }, true)['Retry-After']).toBe('1');
  });
});
