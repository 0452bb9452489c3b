import { condition, uuid4 } from '@temporalio/workflow';
import { commitDecision } from './commit';
import type { ReviewStep } from '@svc/domain';
import type { ExecuteStepInput, ExecuteStepResult, StepError } from '../../shared/runTypes';
import { bookkeeping, notices } from './activities';
import type { RunState } from './state';

/**
 * Pauses the run for a person: approved, rejected, expired (durable timer) or cancelled.
 * Opening the review gives the run's slot on (a run waiting for a person holds none).
 */
export async function awaitReview(
  state: RunState,
  step: ReviewStep,
  ctx: ExecuteStepInput,
  grantKey: (what: string) => string,
): Promise<ExecuteStepResult | { status: 'cancelled' }> {
  const reviewId = `rev_${uuid4().replace(/-/g, '')}`;
  const opened = await bookkeeping.openReview({ ...ctx, reviewId, grantKey: grantKey(`review:${reviewId}`) });
  if (opened.skipped) return { status: 'skipped' };
  state.slot = 'none';
  state.pending = { reviewId };
  state.setStatus('waiting_for_review');
  // Runs beside the wait; a decision or cancellation does not wait for the mail.
  notices.notifyReviewers({ reviewId }).catch(() => undefined);

  const decidedInTime = await condition(() => state.pending!.decision !== undefined || state.cancelRequested, step.timeout_ms);
  // From here no message counts: a decision or cancel arriving while the outcome is recorded is refused.
  state.pending.closing = true;
  // An update's decision is durable only once the workflow task that accepted it is recorded;
  // local activities run inside that task, so a task that then fails (e.g. the server wants it
  // to see a message that arrived meanwhile) must not have written the decision already.
  if (decidedInTime) await commitDecision();
  if (state.cancelRequested && !state.pending.decision) return { status: 'cancelled' };

  const expired = !decidedInTime;
  const given = state.pending.decision;
  const decision = expired ? (step.on_timeout === 'approve' ? 'approved' : 'rejected') : given!.decision;
  const outcome = await bookkeeping.resolveReview({
    runId: ctx.runId,
    workspaceId: ctx.workspaceId,
    reviewId,
    status: expired ? 'expired' : decision,
    decision,
    decidedBy: expired ? null : (given!.decidedBy ?? null),
    decidedVia: expired ? null : (given!.decidedVia ?? null),
    comment: expired ? null : (given!.comment ?? null),
  });
  state.decidedReviews.add(reviewId);
  state.pending = undefined;
  // Running again, so no cancel from here: the decision stands.
  state.setStatus('running');

  if (decision === 'approved' || step.on_reject === 'continue') {
    await bookkeeping.finishStep({ runId: ctx.runId, stepKey: step.key, status: 'succeeded', output: outcome });
    return { status: 'succeeded' };
  }
  const error: StepError = expired
    ? { code: 'review_expired', message: `The review "${step.title}" expired without a decision` }
    : { code: 'review_rejected', message: `The review "${step.title}" was rejected` };
  await bookkeeping.finishStep({ runId: ctx.runId, stepKey: step.key, status: 'failed', output: outcome, error });
  return { status: 'failed', error };
}
