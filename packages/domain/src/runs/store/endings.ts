import { inOrder, inOrderThenCommit, inTransaction, Prisma, rowsOf } from '@svc/db';
import type { SqlSource } from '@svc/db';
import { runEventData } from '../../events/runEventData';
import type { RunView } from '../runView';
import { endSlot, isEndSlotExclusively } from '../slots';
import { jsonb, publishIn, readSettled } from './context';
import type { StoreContext } from './context';
import { noteStepWritten, writeStep } from './steps';
import type { WrittenStep } from './steps';
import type { AfterCommit, FinishRun, StepsData, StepWrite, TerminalRunStatus } from './types';

/** The run's ending written with a step: ready, or worked out from the step as stored. */
export type EndingWithStep = FinishRun | ((step: StepsData[string]) => Promise<FinishRun>) | undefined;

type Ended = [Array<{ settled: TerminalRunStatus | null }>, RunView];

const TERMINAL: readonly string[] = ['succeeded', 'failed', 'cancelled'];

/**
 * An ending's first statements, sent together: the ending, then the run as it now is (its event's
 * payload, and its settling notice). One statement cancels a pending review, ends unfinished steps
 * (cancelled with the run; or, for a run ended from outside, the one in progress failed and the
 * rest skipped) and gives the run its final status unless it has one: the first final status
 * stands. `settled`: this call gave the run its final status.
 */
function endRun(tx: SqlSource, f: FinishRun): Promise<Ended> {
  const { runId, workspaceId } = f;
  const fromStep = f.output && 'fromStep' in f.output ? f.output.fromStep : null;
  const value = f.output && 'value' in f.output ? jsonb(f.output.value) : null;
  return inOrder(
    tx,
    () =>
      rowsOf<{ settled: TerminalRunStatus | null }>(
        tx,
        Prisma.sql`
        WITH reviews_closed AS (
          UPDATE reviews SET status = 'cancelled' WHERE run_id = ${runId} AND status = 'pending'),
        steps_closed AS (
          UPDATE run_steps SET
                 status = CASE WHEN ${f.status} = 'cancelled' THEN 'cancelled' WHEN status = 'pending' THEN 'skipped' ELSE 'failed' END,
                 finished_at = CASE WHEN ${f.status} = 'cancelled' THEN (CASE WHEN started_at IS NOT NULL THEN now() END)
                                    WHEN status = 'pending' THEN finished_at ELSE now() END
           WHERE run_id = ${runId} AND status IN ('pending', 'running', 'waiting_for_review')),
        settled AS (
          UPDATE runs SET status = ${f.status}, finished_at = now(),
                 output = COALESCE(${value}::jsonb, (SELECT output FROM run_steps WHERE run_id = ${runId} AND key = ${fromStep})),
                 error = ${jsonb(f.error)}::jsonb
           WHERE id = ${runId} AND status NOT IN ('succeeded', 'failed', 'cancelled')
          RETURNING status)
        SELECT (SELECT status FROM settled) AS settled`,
      ),
    () => readSettled(tx, runId, workspaceId),
  );
}

/**
 * An ending's last statements: the `run.<status>` event with its deliveries, and the slot's
 * release (last: the workspace's slot lock is held from there to the commit), sent together with
 * the COMMIT (`exclusive` after endSlot asked for it).
 */
async function announceEnd(
  ctx: StoreContext,
  tx: SqlSource,
  f: FinishRun,
  [[row], run]: Ended,
  exclusive: boolean,
): Promise<{ done: AfterCommit & { status: TerminalRunStatus }; settled: boolean }> {
  const status = run.status as TerminalRunStatus;
  if (!TERMINAL.includes(status)) throw new Error(`run ${f.runId} is ${status} after its ending`);
  const [deliveries, granted] = await inOrderThenCommit(
    tx,
    // Per ending: a run re-run by a reset ends (and is announced) again.
    () =>
      publishIn(ctx, tx, {
        workspaceId: f.workspaceId,
        type: `run.${status}`,
        dedupeKey: `${f.runId}:${f.grantKey}:run.${status}`,
        data: runEventData(run),
      }),
    () => endSlot(tx, { workspaceId: f.workspaceId, runId: f.runId, releaseKey: f.grantKey, exclusive }),
  );
  return { done: { status, granted, deliveries }, settled: Boolean(row.settled) };
}

/** Runs an ending with the slot lock shared, then again exclusively when endSlot asks for it (a run began to wait). */
async function withSlotLockFallback<T>(end: (exclusive: boolean) => Promise<T>): Promise<T> {
  try {
    return await end(false);
  } catch (err) {
    if (!isEndSlotExclusively(err)) throw err;
    return end(true);
  }
}

/**
 * The step's write and the ending's first statements: together when the ending is ready, or after
 * the write when it is worked out from the step as stored (and not at all when the write was
 * fenced off).
 */
async function writeAndEnd(
  tx: SqlSource,
  runId: string,
  stepKey: string,
  w: StepWrite,
  ending: EndingWithStep,
): Promise<{ written: WrittenStep; ending?: FinishRun; ended?: Ended }> {
  if (typeof ending !== 'function') {
    const [written, ended] = await inOrder(
      tx,
      () => writeStep(tx, runId, stepKey, w),
      () => (ending ? endRun(tx, ending) : Promise.resolve(undefined)),
    );
    return { written, ending, ended };
  }
  const written = await writeStep(tx, runId, stepKey, w);
  const workedOut = written.step ? await ending(written.step) : undefined;
  return { written, ending: workedOut, ended: workedOut && (await endRun(tx, workedOut)) };
}

/** A run's endings: alone, or with its last local step's write. */
export function createEndingStore(ctx: StoreContext) {
  const settled = (done: { settled: boolean; done: { status: TerminalRunStatus } } | undefined) => {
    if (done?.settled) ctx.observer?.runSettled(done.done.status);
  };
  return {
    /**
     * A local step's end in one transaction (one commit, not two): the step's write and, with
     * `ending` (the run's last step), the run's ending. An ending that needs nothing of the step as
     * stored goes out with the write, in one round trip; one that `ending` works out from the step
     * as stored (an output expression) waits for the write, and is not made when the write was
     * fenced off (`step` null: an earlier attempt settled the step).
     */
    async settleLocalStep(
      runId: string,
      stepKey: string,
      w: StepWrite,
      ending: EndingWithStep,
    ): Promise<{ step: StepsData[string] | null; end?: AfterCommit & { status: TerminalRunStatus } }> {
      const out = await withSlotLockFallback((exclusive) =>
        inTransaction(ctx.db, async (tx) => {
          const { written, ending: worked, ended } = await writeAndEnd(tx, runId, stepKey, w, ending);
          if (!worked || !ended) return { written };
          return { written, end: await announceEnd(ctx, tx, worked, ended, exclusive) };
        }),
      );
      noteStepWritten(ctx, w, out.written);
      settled(out.end);
      return { step: out.written.step, end: out.end?.done };
    },

    /**
     * Ends the run in one transaction: its final status, output and error (the first final
     * status stands, e.g. a cancellation that won a race), its unfinished steps, its slot
     * handed to the next in line, and the `run.<status>` event with its deliveries.
     */
    async finishRun(f: FinishRun): Promise<AfterCommit & { status: TerminalRunStatus }> {
      const out = await withSlotLockFallback((exclusive) =>
        inTransaction(ctx.db, async (tx) => announceEnd(ctx, tx, f, await endRun(tx, f), exclusive)),
      );
      settled(out);
      return out.done;
    },
  };
}
