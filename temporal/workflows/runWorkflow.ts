import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ActivityOptions } from '@temporalio/workflow';
import type { StepDefinition } from '@svc/domain';
import type { RunActivities } from '../activities';
import { runStatusQuery, waitForSettleUpdate } from '../shared/messages';
import type { RunError, RunStatus, RunWorkflowInput, StepError, StepsContext } from '../shared/runTypes';
import { SETTLED_STATUSES } from '../shared/runTypes';
import { SA_RUN_STATUS } from '../shared/searchAttributes';

// Bookkeeping activities: short, idempotent writes to the read model; retried until the
// database is back, so a database outage delays a run but never loses its state.
const bookkeeping = proxyActivities<RunActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s' },
});

function stepActivityOptions(step: StepDefinition): ActivityOptions {
  const timeoutMs = step.type === 'http' ? step.timeout_ms + 10_000 : 60_000;
  return {
    startToCloseTimeout: timeoutMs,
    retry: {
      maximumAttempts: step.retry.max_attempts,
      initialInterval: step.retry.interval_ms,
      backoffCoefficient: step.retry.backoff === 'exponential' ? 2 : 1,
      maximumInterval: Math.max(step.retry.interval_ms, 60_000),
      nonRetryableErrorTypes: ['StepFailedPermanently'],
    },
  };
}

/** One Temporal workflow per run: interprets the pinned definition step by step. */
export async function runWorkflow(args: RunWorkflowInput): Promise<{ status: RunStatus }> {
  const { runId, workspaceId, definition } = args;
  let status: RunStatus = 'queued';

  setHandler(runStatusQuery, () => status);
  setHandler(waitForSettleUpdate, async () => {
    await condition(() => SETTLED_STATUSES.includes(status));
    return status;
  });

  const setStatus = (next: RunStatus) => {
    status = next;
    upsertSearchAttributes([{ key: SA_RUN_STATUS, value: next }]);
  };

  await bookkeeping.markRunRunning({ runId });
  setStatus('running');

  const steps: StepsContext = {};
  let lastOutput: unknown = null;
  let runError: RunError | undefined;
  const keys = definition.steps.map((s) => s.key);

  for (let i = 0; i < definition.steps.length && !runError; i++) {
    const step = definition.steps[i];
    const result = await executeStep(step);
    if (result.status === 'skipped') {
      steps[step.key] = { output: null, status: 'skipped' };
      continue;
    }
    steps[step.key] = { output: result.output ?? null, status: result.status };
    if (result.status === 'failed') {
      runError = { code: result.error.code, message: result.error.message, step_key: step.key };
      break;
    }
    lastOutput = result.output ?? null;
    if (result.jumpTo) {
      const target = keys.indexOf(result.jumpTo);
      const skipped = keys.slice(i + 1, target);
      if (skipped.length) {
        await bookkeeping.setStepsStatus({ runId, stepKeys: skipped, status: 'skipped' });
        for (const k of skipped) steps[k] = { output: null, status: 'skipped' };
      }
      i = target - 1;
    }
  }

  if (runError) {
    const remaining = keys.filter((k) => !(k in steps));
    if (remaining.length) await bookkeeping.setStepsStatus({ runId, stepKeys: remaining, status: 'skipped' });
  }
  const final = await bookkeeping.completeRun({
    runId,
    workspaceId,
    status: runError ? 'failed' : 'succeeded',
    outputExpression: definition.output,
    lastOutput,
    input: args.input,
    steps,
    error: runError,
  });
  // Recorded before the run counts as settled, so a caller woken by `wait` finds the event too.
  const type = `run.${final.status}` as const;
  await bookkeeping.publishEvent({ workspaceId, type, dedupeKey: `${runId}:${type}`, subject: { runId } });
  setStatus(final.status);
  return { status: final.status };

  async function executeStep(
    step: StepDefinition,
  ): Promise<
    | { status: 'skipped' }
    | { status: 'succeeded'; output: unknown; jumpTo?: string }
    | { status: 'failed'; error: StepError; output?: unknown }
  > {
    const ctx = { runId, workspaceId, step, input: args.input, steps };
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
          return { status: 'succeeded', output: null };
        }
        case 'review':
          // The review step arrives with its own capability (issue 4); until then a
          // definition using it fails here, loudly, instead of being silently skipped.
          throw ApplicationFailure.nonRetryable('review steps are not available yet', 'StepFailedPermanently');
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
}
