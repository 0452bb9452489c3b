import { ApplicationFailure, CancellationScope, condition, setHandler, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import {
  cancelRunUpdate,
  decideReviewSignal,
  decideReviewUpdate,
  runStatusQuery,
  TEMPORAL_DECIDED_VIA,
  TEMPORAL_DECIDER,
  waitForSettleUpdate,
} from '../../shared/messages';
import type { DecideReviewInput, RunControlFailure } from '../../shared/messages';
import { SETTLED_STATUSES, TERMINAL_STATUSES } from '../../shared/runTypes';
import type { RunStatus } from '../../shared/runTypes';
import { SA_RUN_STATUS } from '../../shared/searchAttributes';
import { slotGrantedSignal } from '../../shared/slots';

/** What the run workflow knows about its run, and what messages to it change. */
export interface RunState {
  status: RunStatus;
  cancelRequested: boolean;
  /** The review waiting for a person, if any; `decision` is set by the first accepted decision. */
  /**
   * The review waiting for a person, if any: `decision` is set by the first accepted decision;
   * `closing` once its wait is over (decided, expired or cancelled), so no later message counts.
   */
  pending?: { reviewId: string; decision?: DecideReviewInput; closing?: boolean };
  decidedReviews: Set<string>;
  /** Whether this run holds one of its workspace's concurrency slots. */
  slot: 'none' | 'waiting' | 'held';
  /**
   * Moves the run to `next` and shows it in SvcRunStatus; `announce: false` leaves the search
   * attribute for a later call in the same workflow task (each upsert is a visibility write).
   */
  setStatus(next: RunStatus, announce?: boolean): void;
}

function refuse(type: RunControlFailure, message: string, status?: RunStatus): never {
  throw ApplicationFailure.create({ type, message, nonRetryable: true, details: status ? [status] : [] });
}

/** The run's state with its message handlers installed: status query, wait, cancel, decide, slot signal. */
export function createRunState(initial: { status: RunStatus; decidedReviews: string[] }): RunState {
  /** `wait: true` handlers to answer once the run settles (waitUntilSettled). */
  const settleWaiters = new Set<() => void>();
  const state: RunState = {
    status: initial.status,
    cancelRequested: false,
    decidedReviews: new Set(initial.decidedReviews),
    slot: 'none',
    setStatus(next, announce = true) {
      state.status = next;
      if (announce) upsertSearchAttributes([{ key: SA_RUN_STATUS, value: next }]);
      if (SETTLED_STATUSES.includes(next)) settleWaiters.forEach((answer) => answer());
    },
  };

  setHandler(slotGrantedSignal, () => {
    if (state.slot === 'waiting') state.slot = 'held';
  });

  setHandler(runStatusQuery, () => state.status);
  setHandler(waitForSettleUpdate, ({ timeoutMs }) => waitUntilSettled(state, settleWaiters, timeoutMs));

  // Validators run before an update is accepted and the handlers flip their flag before
  // yielding, so a cancel and a decision racing each other are ordered here, once.
  setHandler(
    cancelRunUpdate,
    async () => {
      state.cancelRequested = true;
      await condition(() => TERMINAL_STATUSES.includes(state.status));
      // Should the run ever settle otherwise, answer the caller rather than leave it hanging.
      if (state.status !== 'cancelled') refuse('run_not_cancellable', `A ${state.status} run cannot be cancelled`, state.status);
      return state.status;
    },
    {
      validator: () => {
        if (state.cancelRequested || state.status === 'cancelled') return;
        if (state.pending?.decision || state.pending?.closing)
          refuse('run_not_cancellable', 'The review was already decided; the run goes on', 'running');
        // An opened review counts as waiting from the moment it is recorded, as the read model says.
        if (state.status !== 'queued' && !state.pending)
          refuse('run_not_cancellable', `A ${state.status} run cannot be cancelled`, state.status);
      },
    },
  );

  // An operator's decision from the Temporal UI: applied exactly when the API's would be
  // accepted; otherwise (late, for another review, run cancelled) it changes nothing.
  setHandler(decideReviewSignal, (input) => {
    const { pending } = state;
    if (!pending || pending.decision || pending.closing || state.cancelRequested || input?.review_id !== pending.reviewId) return;
    if (input.decision !== 'approved' && input.decision !== 'rejected') return;
    pending.decision = {
      reviewId: pending.reviewId,
      decision: input.decision,
      comment: input.comment ?? null,
      decidedBy: TEMPORAL_DECIDER,
      decidedVia: TEMPORAL_DECIDED_VIA,
    };
  });

  setHandler(
    decideReviewUpdate,
    async (input) => {
      const reviewId = state.pending!.reviewId;
      state.pending!.decision = input;
      await condition(() => state.decidedReviews.has(reviewId) || TERMINAL_STATUSES.includes(state.status));
      // Should the run ever end before recording it, answer the caller rather than leave it hanging.
      if (!state.decidedReviews.has(reviewId)) refuse('no_pending_review', 'The run ended before the decision was recorded', state.status);
      return { reviewId };
    },
    {
      validator: (input) => {
        const { pending } = state;
        const forPending = pending && (!input.reviewId || input.reviewId === pending.reviewId);
        if (forPending && !pending.decision && !pending.closing && !state.cancelRequested) return;
        // Decided, or expired (closing without a cancel); a cancelled review has none pending.
        if (forPending && (pending.decision || (pending.closing && !state.cancelRequested)))
          refuse('review_already_decided', 'This review was already decided');
        if (input.reviewId && state.decidedReviews.has(input.reviewId)) refuse('review_already_decided', 'This review was already decided');
        refuse('no_pending_review', 'This run has no review waiting for a decision', state.status);
      },
    },
  );
  return state;
}

/**
 * The `wait: true` handler: answers the run's status once it settles, or once the caller's own
 * wait is over, so repeated waits never pile up against the update limit. The commands are
 * `condition(settled, timeoutMs)`'s: a timer started when the update is handled and cancelled
 * when the run settles (both dropped when that is within one workflow task). It is written out
 * because the SDK records a stack for every promise a workflow makes (its stack trace query), and
 * `condition` with a timeout makes about twice as many promises as this.
 */
function waitUntilSettled(state: RunState, waiters: Set<() => void>, timeoutMs: number): Promise<RunStatus> {
  return new Promise((resolve, reject) => {
    const timer = new CancellationScope();
    const answer = () => {
      waiters.delete(answer);
      timer.cancel();
      resolve(state.status);
    };
    waiters.add(answer);
    timer
      .run(() => sleep(timeoutMs))
      .then(answer, (err) => {
        // Cancelled by `answer` (already resolved, so no effect), or the workflow itself was.
        waiters.delete(answer);
        reject(err);
      });
    if (SETTLED_STATUSES.includes(state.status)) answer();
  });
}
