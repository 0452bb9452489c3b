import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { DecidedVia } from '@svc/domain';
import type { RunStatus } from './runTypes';

/** Current status of a run, straight from its workflow. */
export const runStatusQuery = defineQuery<RunStatus>('runStatus');

export interface WaitForSettleInput {
  /** How long the caller waits: the handler returns by then, settled or not. */
  timeoutMs: number;
}

/**
 * Completes when the run settles (succeeded, failed, cancelled or waiting for review), or when
 * the caller's wait is over, and returns the status. Used by `wait: true` so the gateway never
 * polls the database. Bounded by the caller's deadline, so repeated waits cannot pile up
 * against the workflow's in-flight update limit.
 */
export const waitForSettleUpdate = defineUpdate<RunStatus, [WaitForSettleInput]>('waitForSettle');

/**
 * Cancels a queued run or one waiting for review. The validator refuses any other status
 * (failure type `run_not_cancellable`, details `[status]`), so accepting the update IS the
 * decision; it completes once the run is recorded as cancelled.
 */
export const cancelRunUpdate = defineUpdate<RunStatus>('cancelRun');

export interface DecideReviewInput {
  /** When given, the decision applies only if this is the pending review. */
  reviewId?: string;
  decision: 'approved' | 'rejected';
  comment?: string | null;
  decidedBy?: string | null;
  /** Who decided, as the gateway or CLI authenticated them; absent in histories from before it existed. */
  decidedVia?: DecidedVia | null;
}

/**
 * Decides the pending review. The first decision wins; the validator refuses later ones
 * (`review_already_decided`) and runs without a pending review (`no_pending_review`).
 * Completes once the decision is recorded.
 */
export const decideReviewUpdate = defineUpdate<{ reviewId: string }, [DecideReviewInput]>('decideReview');

/** Failure types the validators use; the gateway maps them to problems. */
export const RUN_CONTROL_FAILURES = ['run_not_cancellable', 'review_already_decided', 'no_pending_review'] as const;
export type RunControlFailure = (typeof RUN_CONTROL_FAILURES)[number];

/**
 * Operators in the Temporal UI: ends any unfinished run `cancelled`, as Request
 * Cancellation does. The reason is kept in the workflow's history only.
 */
export const cancelSignal = defineSignal<[{ reason?: string }?]>('cancel');

export interface DecideReviewSignalInput {
  review_id: string;
  decision: 'approved' | 'rejected';
  comment?: string;
}

/**
 * Operators in the Temporal UI: decides the pending review as the API does (the
 * first decision wins; a late or mismatched one changes nothing), recorded as decided by
 * `temporal`. The API uses the update of the same name, for its synchronous answer.
 */
export const decideReviewSignal = defineSignal<[DecideReviewSignalInput]>('decideReview');

/** Who a decision sent by signal from the Temporal UI or CLI is recorded as (label and actor). */
export const TEMPORAL_DECIDER = 'temporal';
export const TEMPORAL_DECIDED_VIA: DecidedVia = { type: 'temporal', id: null };
