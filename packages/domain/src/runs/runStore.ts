import type { Db, PreparedSql } from '@svc/db';
import { createEndingStore } from './store/endings';
import { createReviewStore } from './store/reviews';
import { createStepStore } from './store/steps';
import type { RunStoreObserver } from './store/types';

export type {
  AfterCommit,
  FinishRun,
  RunData,
  RunError,
  RunStoreObserver,
  StepError,
  StepsData,
  StepStatus,
  StepWrite,
  TerminalRunStatus,
} from './store/types';

/**
 * The one owner of run state written by the engine: runs, steps, reviews and their slot, each
 * change with the event it raises in the same transaction (the outbox). Every write is idempotent
 * and fenced (a step's writes never move it backwards; a stale attempt changes nothing), so
 * activity retries and replays are harmless. Reads for the API are in readRuns.
 */
export function createRunStore(
  prisma: Db,
  opts: {
    dispatchDelayMs: number;
    observer?: RunStoreObserver;
    /** Named statements on the pool: every statement and transaction of the store runs there, not through Prisma. */
    sql?: PreparedSql;
  },
) {
  const ctx = { db: opts.sql ?? prisma, observer: opts.observer, dispatchDelayMs: opts.dispatchDelayMs };
  return { ...createStepStore(ctx), ...createEndingStore(ctx), ...createReviewStore(ctx) };
}

export type RunStore = ReturnType<typeof createRunStore>;
