import { randomUUID } from 'node:crypto';
import { ServiceError } from '@temporalio/client';
import { hasGrpcCode } from './unavailable';

const GRPC_FAILED_PRECONDITION = 9;

const ATTEMPTS = 5;

/**
 * Temporal answers FAILED_PRECONDITION "unexpected workflow task failure" when the workflow
 * task that held an update failed, typically because the workflow tried to close just as a new
 * event (a signal, an activity result) arrived and the server asked it to look again. The update
 * was not applied, so it is sent again, under the same update id: the server never applies one
 * update twice.
 */
export async function sendUpdate<T>(send: (updateId: string) => Promise<T>): Promise<T> {
  const updateId = randomUUID();
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(updateId);
    } catch (err) {
      if (attempt >= ATTEMPTS || !isTaskFailure(err)) throw err;
    }
  }
}

/** The refusal `sendUpdate` retries: the workflow task that held the update failed. */
export function isTaskFailure(err: unknown): boolean {
  return (
    err instanceof ServiceError &&
    hasGrpcCode(err, [GRPC_FAILED_PRECONDITION]) &&
    /unexpected workflow task failure/i.test(String((err.cause as Error | undefined)?.message))
  );
}

/** A message (signal, update) cannot reach a workflow that has finished, or was never started. */
export function isWorkflowClosed(err: unknown): boolean {
  return (
    (err as Error | undefined)?.name === 'WorkflowNotFoundError' ||
    /already completed|workflow execution.*(completed|closed)/i.test(String((err as Error | undefined)?.message))
  );
}
