import { isPlan, PLANS } from './plans';
import type { Plan } from './plans';

/** Every rate limit counts requests over a fixed window of this many seconds. */
export const RATE_WINDOW_SECONDS = 60;

/** A workspace may make this many times its per-key figure, across all its keys. */
export const WORKSPACE_RATE_MULTIPLIER = 2;

/** What the figures are computed from: a workspace row, or the part of it read with an API key. */
export interface WorkspacePlanFields {
  plan: string;
  rateLimitPerMin: number | null;
  concurrency: number | null;
}

/** The figures that hold for a workspace right now. */
export interface WorkspaceLimits {
  plan: Plan;
  /** Requests per minute allowed to each API key. */
  keyPerMin: number;
  /** Requests per minute allowed across all the workspace's keys. */
  workspacePerMin: number;
  /** Runs that may be `running` at once; more are accepted and stay `queued`. */
  concurrency: number;
  /** Whether runs may be started at all (the free plan may not). */
  liveRuns: boolean;
}

/** The plans on which a workspace's own figures (set by an operator) count. */
export const CUSTOM_FIGURE_PLANS: readonly Plan[] = ['enterprise'];

/**
 * One of PLANS' figures as the SQL function `svc_plan_figure` takes it (migration
 * 20261125090000_slot_functions): each plan's, and the plans on which a workspace's own figure
 * counts, so a statement applies workspaceLimits' rule from the same table.
 */
export function planFiguresArg(figure: 'ratePerMin' | 'concurrency'): string {
  return JSON.stringify({
    plans: Object.fromEntries(Object.entries(PLANS).map(([plan, figures]) => [plan, figures[figure]])),
    custom: CUSTOM_FIGURE_PLANS,
  });
}

/** A workspace's own figure when it is one (a whole number of at least 1), else undefined. */
export function customFigure(v: number | null | undefined): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : undefined;
}

/**
 * The effective figures of a workspace: its plan's row (plans.ts), or, on the enterprise
 * plan, the workspace's own `rate_limit_per_min` / `concurrency` where set (the elite figures
 * otherwise). Custom figures on any other plan, or below 1, are ignored. An unknown plan name
 * (never written by the application) gets the most restrictive figures, those of free.
 */
export function workspaceLimits(ws: WorkspacePlanFields): WorkspaceLimits {
  const plan: Plan = isPlan(ws.plan) ? ws.plan : 'free';
  const base = PLANS[plan];
  const ownFigures = CUSTOM_FIGURE_PLANS.includes(plan);
  const keyPerMin = (ownFigures ? customFigure(ws.rateLimitPerMin) : undefined) ?? base.ratePerMin;
  const concurrency = ownFigures ? (customFigure(ws.concurrency) ?? base.concurrency) : base.concurrency;
  return {
    plan,
    keyPerMin,
    workspacePerMin: keyPerMin * WORKSPACE_RATE_MULTIPLIER,
    concurrency,
    liveRuns: base.liveRuns,
  };
}
