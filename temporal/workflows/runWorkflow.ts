import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  continueAsNew,
  isCancellation,
  patched,
  setCurrentDetails,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { StepDefinition } from '@svc/domain';
import { permanentFailureCode, STEP_FAILED_PERMANENTLY, TERMINAL_STATUSES } from '../shared/runTypes';
import type {
  ExecuteStepResult,
  RunError,
  RunStatus,
  RunWorkflowInput,
  SlotRequest,
  StepError,
  TerminalRunStatus,
} from '../shared/runTypes';
import { cancelSignal } from '../shared/messages';
import { bookkeeping, stepActivities, stepBookkeeping, stepSummary } from './run/activities';
import { commitDecision } from './run/commit';
import { awaitReview } from './run/review';
import { acquireSlot } from './run/slots';
import { createRunState } from './run/state';

type StepResult = ExecuteStepResult | { status: 'cancelled' };

/**
 * One Temporal workflow per run (RUN_WORKFLOW_TYPE): interprets the pinned definition step by
 * step. Bookkeeping, transform and condition steps are local activities, so a one-step transform
 * run is one workflow task and no regular activity; only http steps, delays and reviews wait on
 * the server. A change to the commands it makes goes behind `patched()` (test/replay/README.md).
 */
export async function runWorkflow(args: RunWorkflowInput): Promise<{ status: RunStatus }> {
  const { runId, workspaceId, definition, resume } = args;
  const state = createRunState({ status: resume ? 'running' : 'queued', decidedReviews: resume?.decidedReviews ?? [] });
  // Names of the slot grants this execution makes (slots.ts): the same on every retry or replay.
  const grantKey = (what: string) => `${workflowInfo().runId}:${what}`;
  const keys = definition.steps.map((s) => s.key);
  let lastStepKey = resume?.lastStepKey ?? null;
  let claims = 0;

  const claimRequest = () => ({ runId, workspaceId, grantKey: grantKey(`claim:${claims++}`) });
  /**
   * Waits for a slot before step `nextStep`; a long wait continues as new from that step.
   * `asked`: the run has already asked (its first step's activity did), so it only waits.
   */
  const acquire = (nextStep: number, asked = false) =>
    acquireSlot(
      state,
      claimRequest(),
      () =>
        continueAsNew<typeof runWorkflow>({
          ...args,
          resume: nextStep > 0 ? { nextStep, lastStepKey, decidedReviews: [...state.decidedReviews] } : undefined,
        }),
      asked,
    );

  // A reset (Temporal UI) starts a new execution that keeps the started event of the one it
  // branched from. Its first new command reopens the run from the step it is on, so the API
  // follows the new branch. `patched` is false while the retained history replays and true
  // from the first new workflow task on (and on every later replay of it), so the reopen
  // happens once, at the same point in every replay.
  const resetBranch = workflowInfo().runId !== workflowInfo().originalExecutionRunId;
  let reopened = false;
  async function reopenIfReset(fromStep: number): Promise<void> {
    if (!resetBranch || reopened || !patched('svc-reset-reopens-run')) return;
    reopened = true;
    await bookkeeping.reopenRun({ runId, fromStep });
  }

  /** One transaction ends the run: status, output, event, deliveries and the slot's release. */
  async function finish(status: TerminalRunStatus, error?: RunError): Promise<{ status: RunStatus }> {
    await reopenIfReset(definition.steps.length);
    const final = await bookkeeping.finishRun({
      runId,
      workspaceId,
      grantKey: grantKey('finish'),
      status,
      outputExpression: definition.output,
      lastStepKey,
      error,
    });
    return ended(final.status);
  }

  /** The run has ended (its slot given on in the same transaction). */
  function ended(status: RunStatus): { status: RunStatus } {
    state.slot = 'none';
    state.setStatus(status);
    return { status };
  }

  // Cancellation from Temporal (Request Cancellation, or the `cancel` signal) cancels the run's
  // body: the step in progress stops (an http request is aborted), then the run ends
  // `cancelled` through the same transaction as every other ending, in a scope that cannot
  // itself be cancelled.
  const body = new CancellationScope();
  let cancelledBySignal = false;
  setHandler(cancelSignal, () => {
    if (TERMINAL_STATUSES.includes(state.status)) return;
    cancelledBySignal = true;
    body.cancel();
  });
  try {
    return await body.run(runSteps);
  } catch (err) {
    if (!isCancellation(err)) throw err;
    const ended = await CancellationScope.nonCancellable(() => finish('cancelled'));
    // Requested through Temporal: the execution itself shows Canceled there too.
    if (!cancelledBySignal) throw err;
    return ended;
  }

  /**
   * A new run whose first step is local asks for its slot in that step's own local activity,
   * which runs the step straight away when a slot is free: one local activity fewer per run.
   * The workflow commits to running before it asks (see below), and goes back to `queued`
   * when no slot was free; the step has not run then.
   */
  async function firstStepWithClaim(): Promise<StepResult | undefined> {
    const step = definition.steps[0];
    if (resume || resetBranch || (step.type !== 'transform' && step.type !== 'condition')) return undefined;
    state.slot = 'waiting';
    // Shown in SvcRunStatus only once the step has run: a run that also ends in this workflow
    // task shows its end alone, one visibility write fewer.
    state.setStatus('running', false);
    const result = await runStep(0, claimRequest());
    if (result.status === 'queued') {
      state.setStatus('queued', false);
      return undefined;
    }
    if (state.slot === 'waiting') state.slot = 'held';
    if (!('run' in result && result.run)) state.setStatus('running');
    return result;
  }

  async function runSteps(): Promise<{ status: RunStatus }> {
    const first = resume?.nextStep ?? 0;
    const early = await firstStepWithClaim();
    if (!early) {
      // `queued` until a slot is free; a cancellation meanwhile ends the run before any step.
      if (!(await acquire(first, state.slot !== 'none'))) {
        await commitDecision();
        return finish('cancelled');
      }
      // The workflow commits to running before the read model says so (the first step's write):
      // a cancel validated in between is refused, never accepted for a run that then goes on.
      state.setStatus('running');
    }

    for (let i = first; i < definition.steps.length; i++) {
      const step = definition.steps[i];
      let result: StepResult;
      if (i === first && early) result = early;
      else {
        await reopenIfReset(i);
        result = await runStep(i);
      }
      if (result.status === 'cancelled') return finish('cancelled');
      if (result.status === 'queued') throw new Error(`step ${step.key} was not asked to claim a slot`);
      if ('run' in result && result.run) return ended(result.run.status);
      if (result.status === 'skipped') continue;
      if (result.status === 'failed')
        return finish('failed', { code: result.error.code, message: result.error.message, step_key: step.key });
      lastStepKey = step.key;
      // Back in line for a slot after a review, before the next step (no cancel is accepted
      // now, but should one be, the run ends rather than go on without a slot).
      if (step.type === 'review' && i + 1 < definition.steps.length && !(await acquire(i + 1))) return finish('cancelled');
      if (result.jumpTo) {
        const target = keys.indexOf(result.jumpTo);
        const skipped = keys.slice(i + 1, target);
        if (skipped.length) await bookkeeping.skipSteps({ runId, stepKeys: skipped });
        i = target - 1;
      }
    }
    return finish('succeeded');
  }

  /** Shows step `i` as the run's current details (Temporal UI), then runs it. */
  function runStep(i: number, claim?: SlotRequest): Promise<StepResult> {
    const step = definition.steps[i];
    setCurrentDetails(`On ${stepSummary(step)}, ${i + 1} of ${definition.steps.length}`);
    return executeStep(step, i === definition.steps.length - 1, claim);
  }

  async function executeStep(step: StepDefinition, last: boolean, claim?: SlotRequest): Promise<StepResult> {
    const ctx = { runId, workspaceId, step };
    try {
      switch (step.type) {
        case 'http':
          return await stepActivities(step).executeStep(ctx);
        case 'transform':
        case 'condition': {
          // The last step, run locally, also ends the run: one local activity fewer.
          const finishRun = last ? { grantKey: grantKey('finish'), outputExpression: definition.output, lastStepKey } : undefined;
          return await stepActivities(step).executeStep({ ...ctx, ...(finishRun ? { finishRun } : {}), ...(claim ? { claim } : {}) });
        }
        case 'delay': {
          const local = stepBookkeeping(step);
          const begun = await local.beginStep(ctx);
          if (begun.skipped) return { status: 'skipped' };
          await sleep(step.duration_ms, { summary: stepSummary(step) });
          await local.finishStep({ runId, stepKey: step.key, status: 'succeeded', output: null });
          return { status: 'succeeded' };
        }
        case 'review':
          return await awaitReview(state, step, ctx, grantKey);
      }
    } catch (err) {
      if (isCancellation(err)) throw err;
      // The activity could not record its own failure (e.g. its worker died on the last
      // attempt, or it timed out): record it here so the step never stays `running`.
      // A regular activity's failure comes wrapped (ActivityFailure), a local one's as it is.
      const failure = err instanceof ActivityFailure && err.cause ? err.cause : (err as Error);
      const error: StepError = {
        // A step failed for good by its activity keeps that failure's code (e.g. a runaway `if`).
        code:
          failure instanceof ApplicationFailure && failure.type === STEP_FAILED_PERMANENTLY
            ? permanentFailureCode(failure.details)
            : 'step_failed',
        message: failure.message,
      };
      await bookkeeping.finishStep({ runId, stepKey: step.key, status: 'failed', error });
      return { status: 'failed', error };
    }
  }
}
