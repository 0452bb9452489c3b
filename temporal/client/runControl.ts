import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { AppError } from '@svc/domain';
import type { ReviewDecision, RunControl } from '@svc/domain';
import { cancelRunUpdate, decideReviewUpdate, RUN_CONTROL_FAILURES } from '../shared/messages';
import type { RunControlFailure } from '../shared/messages';
import { withDeadline } from './connection';
import { isWorkflowClosed, sendUpdate } from './updateRetry';
import { isResourceExhausted, updateRefused } from './updateLimit';

/** Turns a validator's refusal, or Temporal's refusal for load, into the API's problem; anything else is re-thrown. */
function toAppError(err: unknown): never {
  if (isResourceExhausted(err)) throw updateRefused();
  const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
  if (cause instanceof ApplicationFailure && (RUN_CONTROL_FAILURES as readonly string[]).includes(cause.type ?? '')) {
    const code = cause.type as RunControlFailure;
    const runStatus = cause.details?.[0] as string | undefined;
    throw new AppError(code, cause.message, runStatus && code === 'run_not_cancellable' ? { extensions: { run_status: runStatus } } : {});
  }
  throw err;
}

export function createRunControl(client: Client): RunControl {
  return {
    async cancel(ref) {
      try {
        await withDeadline(client, () =>
          sendUpdate((updateId) => client.workflow.getHandle(ref.temporalWorkflowId).executeUpdate(cancelRunUpdate, { updateId })),
        );
        return 'cancelled';
      } catch (err) {
        if (isWorkflowClosed(err)) return 'closed';
        return toAppError(err);
      }
    },
    async decide(ref, decision: ReviewDecision) {
      try {
        await withDeadline(client, () =>
          sendUpdate((updateId) =>
            client.workflow.getHandle(ref.temporalWorkflowId).executeUpdate(decideReviewUpdate, { args: [decision], updateId }),
          ),
        );
        return 'decided';
      } catch (err) {
        if (isWorkflowClosed(err)) return 'closed';
        return toAppError(err);
      }
    },
  };
}
