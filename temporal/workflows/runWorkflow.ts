import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import type { ActivityOptions } from '@temporalio/workflow';
import type { EventType, ReviewStep, StepDefinition } from '@svc/domain';
import type { RunActivities } from '../activities';
import { cancelRunUpdate, decideReviewUpdate, runStatusQuery, waitForSettleUpdate } from '../shared/messages';
import type { DecideReviewInput, RunControlFailure } from '../shared/messages';
import type { ExecuteStepResult, RunError, RunStatus, RunWorkflowInput, StepError, StepStatus } from '../shared/runTypes';
import { TERMINAL_STATUSES, SETTLED_STATUSES } from '../shared/runTypes';
import { SA_RUN_STATUS } from '../shared/searchAttributes';
import { slotGrantedSignal } from '../shared/slots';

// Bookkeeping activities: short, idempotent writes to the read model; retried until the
// database is back, so a database outage delays a run but never loses its state.
const bookkeeping = proxyActivities<RunActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s' },
});

// A run waiting for a concurrency slot re-checks its place at growing intervals (its history
// stays short however long it waits).
const SLOT_RECHECK_MIN_MS = 5_000;
const SLOT_RECHECK_MAX_MS = 60_000;

// The step activity settles a step's own failures itself (it returns `failed` once the step's
// attempts are used up), so Temporal's bound only meets attempts lost to the platform — a
// worker killed or the Temporal server restarted mid-attempt: those are retried, so a step
// never fails for them (they do show in its attempt count).
const PLATFORM_RETRY_ALLOWANCE = 10;

function stepActivityOptions(step: StepDefinition): ActivityOptions {
  const timeoutMs = step.type === 'http' ? step.timeout_ms + 10_000 : 30_000;
  return {
    startToCloseTimeout: timeoutMs,
    retry: {
      maximumAttempts: step.retry.max_attempts + PLATFORM_RETRY_ALLOWANCE,
      initialInterval: step.retry.interval_ms,
      backoffCoefficient: step.retry.backoff === 'exponential' ? 2 : 1,
      maximumInterval: Math.max(step.retry.interval_ms, 60_000),
      nonRetryableErrorTypes: ['StepFailedPermanently'],
    },
  };
}

// Mail is best effort with a bound: a broken mail server must not keep a run from settling.
const notices = proxyActivities<RunActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '10m', maximumAttempts: 12 },
});

function refuse(type: RunControlFailure, message: string, status?: RunStatus): never {
  throw ApplicationFailure.create({ type, message, nonRetryable: true, details: status ? [status] : [] });
}

type StepResult = ExecuteStepResult | { status: 'cancelled' };

/** One Temporal workflow per run: interprets the pinned definition step by step. */
export async function runWorkflow(args: RunWorkflowInput): Promise<{ status: RunStatus }> {
  const { runId, workspaceId, definition } = args;
  let status: RunStatus = 'queued';
  let cancelRequested = false;
  /** The review waiting for a person, if any; `decision` is set by the first accepted decision. */
  let pending: { reviewId: string; decision?: DecideReviewInput } | undefined;
  const decidedReviews = new Set<string>();

  /** Whether this run holds one of its workspace's concurrency slots (API.md §8). */
  let slot: 'none' | 'waiting' | 'held' = 'none';
  setHandler(slotGrantedSignal, () => {
    if (slot === 'waiting') slot = 'held';
  });

  setHandler(runStatusQuery, () => status);
  setHandler(waitForSettleUpdate, async ({ timeoutMs }) => {
    await condition(() => SETTLED_STATUSES.includes(status), timeoutMs);
    return status;
  });

  // Validators run before an update is accepted and the handlers flip their flag before
  // yielding, so a cancel and a decision racing each other are ordered here, once.
  setHandler(
    cancelRunUpdate,
    async () => {
      cancelRequested = true;
      await condition(() => TERMINAL_STATUSES.includes(status));
      // Should the run ever settle otherwise, answer the caller rather than leave it hanging.
      if (status !== 'cancelled') refuse('run_not_cancellable', `A ${status} run cannot be cancelled`, status);
      return status;
    },
    {
      validator: () => {
        if (cancelRequested || status === 'cancelled') return;
        if (pending?.decision) refuse('run_not_cancellable', 'The review was already decided; the run goes on', 'running');
        // An opened review counts as waiting from the moment it is recorded, as the read model says.
        if (status !== 'queued' && !pending) refuse('run_not_cancellable', `A ${status} run cannot be cancelled`, status);
      },
    },
  );

  setHandler(
    decideReviewUpdate,
    async (input) => {
      const reviewId = pending!.reviewId;
      pending!.decision = input;
      await condition(() => decidedReviews.has(reviewId));
      return { reviewId };
    },
    {
      validator: (input) => {
        const forPending = pending && (!input.reviewId || input.reviewId === pending.reviewId);
        if (forPending && !pending!.decision && !cancelRequested) return;
        if (forPending && pending!.decision) refuse('review_already_decided', 'This review was already decided');
        if (input.reviewId && decidedReviews.has(input.reviewId)) refuse('review_already_decided', 'This review was already decided');
        refuse('no_pending_review', 'This run has no review waiting for a decision', status);
      },
    },
  );

  const setStatus = (next: RunStatus) => {
    status = next;
    upsertSearchAttributes([{ key: SA_RUN_STATUS, value: next }]);
  };
  const publish = (type: EventType, dedupeKey: string, subject: { runId: string } | { reviewId: string }) =>
    bookkeeping.publishEvent({ workspaceId, type, dedupeKey, subject });

  /** Waits (first come, first served) for a slot; false when the run was cancelled meanwhile. */
  async function acquireSlot(): Promise<boolean> {
    slot = 'waiting';
    // Told by a signal when a slot frees; re-checks its place now and then all the same, which
    // also reclaims slots of runs that ended without giving theirs back (terminated ones).
    for (let recheckMs = SLOT_RECHECK_MIN_MS; ; recheckMs = Math.min(recheckMs * 2, SLOT_RECHECK_MAX_MS)) {
      const { granted } = await bookkeeping.acquireSlot({ workspaceId, runId });
      if (granted && slot === 'waiting') slot = 'held';
      if (await condition(() => slot === ('held' as typeof slot) || cancelRequested, recheckMs)) break;
    }
    // An accepted cancellation wins even over a slot granted in the same instant.
    if (!cancelRequested) return true;
    await releaseSlot(); // give the slot back, or leave the line
    return false;
  }
  async function releaseSlot(): Promise<void> {
    if (slot === 'none') return;
    slot = 'none';
    await bookkeeping.releaseSlot({ workspaceId, runId });
  }

  /** Steps settled so far (their outputs are in PostgreSQL, not here). */
  const settled = new Map<string, StepStatus>();
  const keys = definition.steps.map((s) => s.key);

  // `queued` until a slot is free; a cancellation meanwhile ends the run before any step.
  if (cancelRequested || !(await acquireSlot())) return finishCancelled();
  try {
    return await runSteps();
  } finally {
    await releaseSlot();
  }

  async function runSteps(): Promise<{ status: RunStatus }> {
    // The workflow commits to running before the read model says so: a cancel validated in
    // between is refused, never accepted for a run that then goes on.
    setStatus('running');
    await bookkeeping.markRunRunning({ runId });

    let lastStepKey: string | null = null;
    let runError: RunError | undefined;

    for (let i = 0; i < definition.steps.length && !runError; i++) {
      const step = definition.steps[i];
      const result = await executeStep(step);
      if (result.status === 'cancelled') return finishCancelled();
      settled.set(step.key, result.status);
      if (result.status === 'skipped') continue;
      if (result.status === 'failed') {
        runError = { code: result.error.code, message: result.error.message, step_key: step.key };
        break;
      }
      lastStepKey = step.key;
      if (result.jumpTo) {
        const target = keys.indexOf(result.jumpTo);
        const skipped = keys.slice(i + 1, target);
        if (skipped.length) {
          await bookkeeping.setStepsStatus({ runId, stepKeys: skipped, status: 'skipped' });
          for (const k of skipped) settled.set(k, 'skipped');
        }
        i = target - 1;
      }
    }

    if (runError) {
      const remaining = keys.filter((k) => !settled.has(k));
      if (remaining.length) await bookkeeping.setStepsStatus({ runId, stepKeys: remaining, status: 'skipped' });
    }
    const final = await bookkeeping.completeRun({
      runId,
      workspaceId,
      status: runError ? 'failed' : 'succeeded',
      outputExpression: definition.output,
      lastStepKey,
      error: runError,
    });
    // Recorded before the run counts as settled, so a caller woken by `wait` finds the event too.
    const type = `run.${final.status}` as const;
    await publish(type, `${runId}:${type}`, { runId });
    await releaseSlot();
    setStatus(final.status);
    return { status: final.status };
  }

  async function finishCancelled(): Promise<{ status: RunStatus }> {
    await bookkeeping.cancelRun({ runId });
    await publish('run.cancelled', `${runId}:run.cancelled`, { runId });
    setStatus('cancelled');
    return { status: 'cancelled' };
  }

  async function executeStep(step: StepDefinition): Promise<StepResult> {
    const ctx = { runId, workspaceId, step };
    try {
      switch (step.type) {
        case 'http':
        case 'transform':
        case 'condition':
          return await proxyActivities<RunActivities>(stepActivityOptions(step)).executeStep(ctx);
        case 'delay': {
          const begun = await bookkeeping.beginStep(ctx);
          if (begun.skipped) return { status: 'skipped' };
          await sleep(step.duration_ms);
          await bookkeeping.finishStep({ runId, stepKey: step.key, status: 'succeeded', output: null });
          return { status: 'succeeded' };
        }
        case 'review':
          return await awaitReview(step, ctx);
      }
    } catch (err) {
      // The activity could not record its own failure (e.g. its worker died on the last
      // attempt, or it timed out): record it here so the step never stays `running`.
      const error: StepError = {
        code: 'step_failed',
        message: err instanceof ActivityFailure && err.cause ? err.cause.message : (err as Error).message,
      };
      await bookkeeping.finishStep({ runId, stepKey: step.key, status: 'failed', error });
      return { status: 'failed', error };
    }
  }

  /** Pauses the run for a person: approved, rejected, expired (durable timer) or cancelled. */
  async function awaitReview(step: ReviewStep, ctx: Parameters<RunActivities['executeStep']>[0]): Promise<StepResult> {
    const reviewId = `rev_${uuid4().replace(/-/g, '')}`;
    const opened = await bookkeeping.openReview({ ...ctx, reviewId });
    if (opened.skipped) return { status: 'skipped' };
    pending = { reviewId };
    await publish('run.waiting_for_review', `${reviewId}:run.waiting_for_review`, { runId });
    setStatus('waiting_for_review');
    await releaseSlot(); // a run waiting for a person holds no slot
    // Runs beside the wait; a decision or cancellation does not wait for the mail.
    notices.notifyReviewers({ reviewId }).catch(() => undefined);

    const decidedInTime = await condition(() => pending!.decision !== undefined || cancelRequested, step.timeout_ms);
    if (cancelRequested && !pending.decision) return { status: 'cancelled' };

    const expired = !decidedInTime;
    const decision = expired ? (step.on_timeout === 'approve' ? 'approved' : 'rejected') : pending.decision!.decision;
    const outcome = await bookkeeping.resolveReview({
      runId,
      reviewId,
      status: expired ? 'expired' : decision,
      decision,
      decidedBy: expired ? null : (pending.decision!.decidedBy ?? null),
      comment: expired ? null : (pending.decision!.comment ?? null),
    });
    decidedReviews.add(reviewId);
    pending = undefined;
    await publish('review.decided', `${reviewId}:review.decided`, { reviewId });
    // Running again (so no cancel from here: the decision stands), back in line for a slot.
    setStatus('running');
    await acquireSlot();

    if (decision === 'approved' || step.on_reject === 'continue') {
      await bookkeeping.finishStep({ runId, stepKey: step.key, status: 'succeeded', output: outcome });
      return { status: 'succeeded' };
    }
    const error: StepError = expired
      ? { code: 'review_expired', message: `The review "${step.title}" expired without a decision` }
      : { code: 'review_rejected', message: `The review "${step.title}" was rejected` };
    await bookkeeping.finishStep({ runId, stepKey: step.key, status: 'failed', output: outcome, error });
    return { status: 'failed', error };
  }
}
