import { randomUUID } from 'node:crypto';
import { ServiceError } from '@temporalio/client';

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

export function isTaskFailure(err: unknown): boolean {
  if (!(err instanceof ServiceError)) return false;
  const cause = err.cause as { code?: number; message?: string } | undefined;
  return cause?.code === 9 && /unexpected workflow task failure/i.test(cause.message ?? '');
}
