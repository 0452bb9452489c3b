/** The plans and their figures (docs/limits.md). `enterprise` figures are custom per workspace. */
export const PLANS = {
  free: { ratePerMin: 60, concurrency: 0, liveRuns: false },
  basic: { ratePerMin: 120, concurrency: 5, liveRuns: true },
  pro: { ratePerMin: 600, concurrency: 20, liveRuns: true },
  business: { ratePerMin: 900, concurrency: 35, liveRuns: true },
  elite: { ratePerMin: 1200, concurrency: 50, liveRuns: true },
  enterprise: { ratePerMin: 1200, concurrency: 50, liveRuns: true },
} as const;

export type Plan = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as Plan[];

export function isPlan(v: string): v is Plan {
  return v in PLANS;
}
