import { RATE_WINDOW_SECONDS, WORKSPACE_RATE_MULTIPLIER, workspaceLimits } from './limits';

const ws = (plan: string, rateLimitPerMin: number | null = null, concurrency: number | null = null) => ({
  plan,
  rateLimitPerMin,
  concurrency,
});

describe('workspaceLimits', () => {
  test.each([
    ['free', 60, 120, 0, false],
    ['basic', 120, 240, 5, true],
    ['pro', 600, 1200, 20, true],
    ['business', 900, 1800, 35, true],
    ['elite', 1200, 2400, 50, true],
    ['enterprise', 1200, 2400, 50, true],
  ])('gives the %s plan its figures', (plan, key, workspace, concurrency, liveRuns) => {
    expect(workspaceLimits(ws(plan))).toEqual({ plan, keyPerMin: key, workspacePerMin: workspace, concurrency, liveRuns });
  });

  it('uses the custom figures of an enterprise workspace', () => {
    expect(workspaceLimits(ws('enterprise', 5, 3))).toEqual({
      plan: 'enterprise',
      keyPerMin: 5,
      workspacePerMin: 10,
      concurrency: 3,
      liveRuns: true,
    });
    expect(workspaceLimits(ws('enterprise', 10_000, null))).toMatchObject({ keyPerMin: 10_000, workspacePerMin: 20_000, concurrency: 50 });
    expect(workspaceLimits(ws('enterprise', null, 200))).toMatchObject({ keyPerMin: 1200, workspacePerMin: 2400, concurrency: 200 });
  });

  it('ignores custom figures on any other plan', () => {
    expect(workspaceLimits(ws('basic', 5, 100))).toMatchObject({ keyPerMin: 120, workspacePerMin: 240, concurrency: 5 });
    expect(workspaceLimits(ws('free', 1000, 10))).toMatchObject({ keyPerMin: 60, concurrency: 0, liveRuns: false });
  });

  it('ignores custom figures below 1 or not whole', () => {
    expect(workspaceLimits(ws('enterprise', 0, 0))).toMatchObject({ keyPerMin: 1200, concurrency: 50 });
    expect(workspaceLimits(ws('enterprise', -3, 2.5))).toMatchObject({ keyPerMin: 1200, concurrency: 50 });
  });

  it('treats an unknown plan as free, the most restrictive', () => {
    expect(workspaceLimits(ws('platinum', 1000, 1000))).toEqual({
      plan: 'free',
      keyPerMin: 60,
      workspacePerMin: 120,
      concurrency: 0,
      liveRuns: false,
    });
  });

  it('counts per minute, with the workspace at twice the key figure', () => {
    expect(RATE_WINDOW_SECONDS).toBe(60);
    expect(WORKSPACE_RATE_MULTIPLIER).toBe(2);
  });
});
