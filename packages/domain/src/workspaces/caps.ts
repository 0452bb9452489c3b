import { AppError } from '../errors';
import { CUSTOM_FIGURE_PLANS, customFigure } from './limits';
import { isPlan } from './plans';

/** The per-workspace caps, by name (the name a `limit_exceeded` answer gives). */
export const WORKSPACE_CAP_NAMES = ['webhook_endpoints', 'secrets', 'review_assignees'] as const;
export type CapName = (typeof WORKSPACE_CAP_NAMES)[number];

/** What a workspace may hold at most, on every plan (an enterprise workspace may have figures of its own). */
export const WORKSPACE_CAPS: Record<CapName, number> = {
  webhook_endpoints: 50,
  secrets: 100,
  review_assignees: 10,
};

/**
 * The most an operator may set a cap to: every secret is opened for each step of every run of the
 * workspace, every endpoint is one delivery per event, and every assignee one mail per review.
 */
export const CAP_CEILINGS: Record<CapName, number> = {
  webhook_endpoints: 1_000,
  secrets: 1_000,
  review_assignees: 100,
};

/** The largest value one secret may hold, on every plan. */
export const MAX_SECRET_BYTES = 64 * 1024;

/** A workspace's own cap figures as stored (null: the plan's). */
export interface WorkspaceCapFields {
  plan: string;
  maxWebhookEndpoints: number | null;
  maxSecrets: number | null;
  maxReviewAssignees: number | null;
}

export type WorkspaceCaps = Record<CapName, number>;

/** The caps that hold for a workspace: the plan's, or an enterprise workspace's own where set. */
export function workspaceCaps(ws: WorkspaceCapFields): WorkspaceCaps {
  const own = isPlan(ws.plan) && CUSTOM_FIGURE_PLANS.includes(ws.plan);
  const pick = (name: CapName, value: number | null) => (own ? (customFigure(value) ?? WORKSPACE_CAPS[name]) : WORKSPACE_CAPS[name]);
  return {
    webhook_endpoints: pick('webhook_endpoints', ws.maxWebhookEndpoints),
    secrets: pick('secrets', ws.maxSecrets),
    review_assignees: pick('review_assignees', ws.maxReviewAssignees),
  };
}

const DETAIL: Record<CapName, (figure: number) => string> = {
  webhook_endpoints: (figure) => `This workspace already holds its cap of webhook endpoints (${figure})`,
  secrets: (figure) => `This workspace already holds its cap of secrets (${figure})`,
  review_assignees: (figure) => `A review step names more assignees than this workspace's cap (${figure})`,
};

/** 422 `limit_exceeded`, naming the cap (`limit`) and the workspace's figure for it (`limit_value`). */
export function limitExceeded(cap: CapName, figure: number, errors?: { path: string; message: string }[]): AppError {
  return new AppError('limit_exceeded', DETAIL[cap](figure), {
    errors,
    extensions: { limit: cap, limit_value: figure },
  });
}
