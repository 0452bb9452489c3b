import { inOrder, inOrderThenCommit, inTransaction, Prisma, rowsOf } from '@svc/db';
import type { Db, PreparedSql, SqlSource } from '@svc/db';
import type { EventType } from '../events/events';
import { runEventData } from '../events/runEventData';
import { DECIDED_VIA_TIMEOUT } from '../reviews/decidedVia';
import type { DecidedVia } from '../reviews/decidedVia';
import { recordEventAndDeliveries } from '../webhooks/fanOut';
import type { DeliveryRef } from '../webhooks/fanOut';
import { runFromJson, runSelectJson } from './readRuns';
import { toReviewView } from './runView';
import type { RunView } from './runView';
import { endSlot, isEndSlotExclusively, releaseSlots } from './slots';
import type { SlotGrant } from './slots';
import { sealedSecretsColumn } from '../secrets/secrets';
import type { SealedSecret } from '../secrets/secrets';

type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

export type StepStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'waiting_for_review' | 'cancelled';
export type TerminalRunStatus = 'succeeded' | 'failed' | 'cancelled';

export interface StepError {
  code: string;
  message: string;
}

export interface RunError extends StepError {
  step_key: string | null;
}

/** Step outputs as expressions see them. */
export type StepsData = Record<string, { output: unknown; status: string }>;

/** A run's data as its expressions see it (loadData), with the workspace's secrets still sealed. */
export interface RunData {
  /** The workflow version the run is pinned to. */
  workflowId: string;
  workflowVersion: number;
  input: unknown;
  steps: StepsData;
  /** What its step outputs take together, as JSON (bounded by MAX_RUN_DATA_BYTES). */
  dataBytes: number;
  secrets: SealedSecret[];
}

/** Work left for after a commit: waiting runs to tell of their slot, deliveries to start. */
export interface AfterCommit {
  granted: SlotGrant[];
  deliveries: DeliveryRef[];
}

export interface StepWrite {
  status: StepStatus;
  /** The attempt count to record (at least); 0 for a step that never ran. */
  attempts: number;
  /** When the step started, for steps written once at their end (local steps); else kept. */
  startedAt?: Date | null;
  output?: unknown;
  error?: StepError | null;
  /** The activity attempt writing: an earlier (stale) attempt never overwrites a later one's. */
  fence?: number;
  /** Whether to return the output as stored, for an expression evaluated next (finishStep). */
  readBack?: boolean;
}

export interface FinishRun {
  runId: string;
  workspaceId: string;
  status: TerminalRunStatus;
  /** The run's output, or where to take it from: the output of this step. */
  output: { value: unknown } | { fromStep: string } | null;
  error: RunError | null;
  /** Names this release of the run's slot (see slots.ts); the same on every retry. */
  grantKey: string;
}

/** Told of run-state changes once they are committed (the worker's metrics). */
export interface RunStoreObserver {
  /** A run left `queued` for its first step. */
  runStarted(): void;
  /** A step ended `succeeded` or `failed`, after this long from its start (as the API's `duration_ms`). */
  stepFinished(type: string, seconds: number): void;
  /** A run reached its final status (each ending once; a reset branch ends again). */
  runSettled(status: TerminalRunStatus): void;
}

/** The run's ending settleLocalStep writes with a step: ready, or worked out from the step as stored. */
type AlongWithStep = FinishRun | ((step: StepsData[string]) => Promise<FinishRun>) | undefined;

/** What finishStep's statement did: moved the run out of `queued` (1), and the step as written (null: fenced off). */
interface WrittenStep {
  started: number;
  type: string | null;
  seconds: number | null;
  step: StepsData[string] | null;
}

const TERMINAL: readonly string[] = ['succeeded', 'failed', 'cancelled'];

/** The largest run row a settling notice carries (PostgreSQL takes payloads under 8,000 bytes). */
const NOTICE_BODY_MAX = 7_900;

/** JSON for a jsonb parameter; null stays SQL NULL. */
const jsonb = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));

/**
 * Fencing: a step's writes never move it backwards. A settled step (succeeded, failed, skipped,
 * cancelled) is only changed by a reset (reopenRun), and an activity attempt never overwrites
 * what a later attempt wrote (attempt numbers), so a stale attempt finishing late changes nothing.
 *
 * The one owner of run state written by the engine: runs, steps, reviews and their slot, each
 * change with the event it raises in the same transaction (the outbox). Every write is
 * idempotent, so activity retries and replays are harmless. Reads for the API are in readRuns.
 */
export function createRunStore(
  prisma: Db,
  opts: {
    dispatchDelayMs: number;
    observer?: RunStoreObserver;
    /** Named statements on the pool: a run's step writes and its ending run there, not through Prisma. */
    sql?: PreparedSql;
  },
) {
  /** Reports a run's move out of `queued` (by how many rows that write moved: once per run). */
  const noteStart = (moved: number): void => {
    if (moved > 0) opts.observer?.runStarted();
  };

  /** Records an event and its deliveries in the caller's transaction. */
  async function publishIn(
    tx: Tx | PreparedSql,
    workspaceId: string,
    type: EventType,
    dedupeKey: string,
    data: unknown,
  ): Promise<DeliveryRef[]> {
    const { deliveries } = await recordEventAndDeliveries(
      tx,
      { workspaceId, type, dedupeKey, data },
      { dispatchDelayMs: opts.dispatchDelayMs },
    );
    return deliveries;
  }

  /**
   * The run as it now is, read in the transaction that settles it (an event's payload). A run
   * whose start waits for it is also sent with its id on its waiting gateway's channel (its
   * `settle_channel`, settleNotices.ts), delivered at the commit: with the run's row as `GET`
   * reads it (runSelectJson) when that fits a notification, so the waiting `wait: true` answers
   * without reading it again. Other runs send nothing: a notifying transaction commits behind
   * every other one in the cluster (PostgreSQL's notify lock, held through its commit).
   */
  async function readSettled(db: SqlSource, runId: string, workspaceId: string): Promise<RunView> {
    const [{ run }] = await rowsOf<{ run: unknown }>(
      db,
      Prisma.sql`
      SELECT r.run FROM (SELECT ${runSelectJson(runId, workspaceId)} AS run) r
        LEFT JOIN LATERAL (
          SELECT pg_notify(settle_channel,
                   ${runId}::text || CASE WHEN octet_length(r.run::text) <= ${NOTICE_BODY_MAX} THEN chr(10) || r.run::text ELSE '' END)
            FROM runs WHERE id = ${runId} AND settle_channel IS NOT NULL) notice ON true`,
    );
    return runFromJson(run, runId);
  }

  /** An event about a review: its payload is the review as the API shows it. */
  async function publishReviewIn(tx: Tx, workspaceId: string, type: EventType, dedupeKey: string, reviewId: string) {
    const review = await tx.review.findUniqueOrThrow({ where: { id: reviewId } });
    return publishIn(tx, workspaceId, type, dedupeKey, { ...toReviewView(review), run_id: review.runId });
  }

  /** A run's hot statements and its transactions: on the pool's prepared statements when given. */
  const hot = opts.sql ?? prisma;

  /** finishStep's statement, on the pool or in the caller's transaction. */
  async function writeStep(db: SqlSource, runId: string, stepKey: string, w: StepWrite): Promise<WrittenStep> {
    const output = jsonb(w.output);
    const [row] = await rowsOf<{
      started: number;
      type: string | null;
      seconds: number | null;
      output: unknown;
    }>(
      db,
      Prisma.sql`
      WITH run AS (UPDATE runs SET status = 'running', started_at = COALESCE(started_at, ${w.startedAt ?? null}::timestamptz, now())
                    WHERE id = ${runId} AND status = 'queued' RETURNING 1),
      step AS (UPDATE run_steps SET status = ${w.status}, attempts = GREATEST(attempts, ${w.attempts}),
             started_at = COALESCE(started_at, ${w.startedAt ?? null}::timestamptz), finished_at = now(),
             output = COALESCE(${output}::jsonb, output),
             output_bytes = COALESCE(${output === null ? null : Buffer.byteLength(output)}::int, output_bytes),
             error = COALESCE(${jsonb(w.error)}::jsonb, error)
       WHERE run_id = ${runId} AND key = ${stepKey} AND status NOT IN ('succeeded', 'failed', 'skipped', 'cancelled')
         AND (${w.fence ?? null}::int IS NULL OR attempts <= ${w.fence ?? null}::int)
       RETURNING type, EXTRACT(EPOCH FROM finished_at - started_at)::float8 AS seconds, output)
      SELECT (SELECT count(*)::int FROM run) AS started, step.type, step.seconds,
             CASE WHEN ${w.readBack ?? false} THEN step.output END AS output FROM (SELECT 1) one LEFT JOIN step ON true`,
    );
    const { started, type, seconds } = row;
    return { started, type, seconds, step: type ? { output: row.output, status: w.status } : null };
  }

  /** A committed writeStep, told to the observer. */
  function noteStepWritten(w: StepWrite, { started, type, seconds }: WrittenStep): void {
    noteStart(started);
    if ((w.status === 'succeeded' || w.status === 'failed') && type && seconds !== null) opts.observer?.stepFinished(type, seconds);
  }

  /**
   * finishRun's first statements, in the caller's transaction: the ending, then the run as it
   * now is (its event's payload, and its settling notice), sent together (inOrder). `settled`: this call gave the run its
   * final status; the run read after it has the final status either way.
   */
  function endRun(tx: SqlSource, f: FinishRun): Promise<[Array<{ settled: TerminalRunStatus | null }>, RunView]> {
    const { runId, workspaceId } = f;
    const fromStep = f.output && 'fromStep' in f.output ? f.output.fromStep : null;
    const value = f.output && 'value' in f.output ? jsonb(f.output.value) : null;
    // One statement: a pending review is cancelled; unfinished steps end (cancelled with
    // the run, or, when the run was ended from outside (terminated), the one in progress
    // failed and the rest skipped); the run takes its final status unless it has one (the
    // first final status stands; a concurrent ending is waited for, and the read after sees it,
    // and sends it to a waiting gateway, readSettled).
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
   * finishRun's last statements, after endRun's: the `run.<status>` event with its deliveries,
   * and the slot's release (last: the workspace's slot lock is held from there to the commit),
   * sent together, and the transaction's COMMIT with them (`exclusive` after endSlot asked for it).
   */
  async function announceEnd(
    tx: Tx | PreparedSql,
    f: FinishRun,
    [[row], run]: Awaited<ReturnType<typeof endRun>>,
    exclusive: boolean,
  ): Promise<{ done: AfterCommit & { status: TerminalRunStatus }; settled: boolean }> {
    const status = run.status as TerminalRunStatus;
    if (!TERMINAL.includes(status)) throw new Error(`run ${f.runId} is ${status} after its ending`);
    const [deliveries, granted] = await inOrderThenCommit(
      tx,
      // Per ending: a run re-run by a reset ends (and is announced) again.
      () => publishIn(tx, f.workspaceId, `run.${status}`, `${f.runId}:${f.grantKey}:run.${status}`, runEventData(run)),
      () => endSlot(tx, { workspaceId: f.workspaceId, runId: f.runId, releaseKey: f.grantKey, exclusive }),
    );
    return { done: { status, granted, deliveries }, settled: Boolean(row.settled) };
  }

  /** Runs `end` without, then (when endSlot asks for it) with the workspace's exclusive slot lock. */
  async function endingExclusivelyIfAsked<T>(end: (exclusive: boolean) => Promise<T>): Promise<T> {
    try {
      return await end(false);
    } catch (err) {
      if (!isEndSlotExclusively(err)) throw err;
      return end(true);
    }
  }

  /**
   * settleLocalStep's first statements: the step's write and the ending's first statements,
   * together when the ending is ready, or after the write when it is worked out from the step
   * as stored (and not at all when the write was fenced off).
   */
  async function writeAndEnd(
    tx: SqlSource,
    runId: string,
    stepKey: string,
    w: StepWrite,
    ending: AlongWithStep,
  ): Promise<{ written: WrittenStep; ending?: FinishRun; ended?: Awaited<ReturnType<typeof endRun>> }> {
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

  return {
    /**
     * What a run's expressions see, in one query: its input, its settled steps' outputs (and
     * their size together), and its workspace's secrets, still sealed (the caller opens those
     * its definition reads, openRunSecrets).
     */
    async loadData(runId: string, workspaceId: string): Promise<RunData> {
      const [row] = await rowsOf<RunData>(
        hot,
        Prisma.sql`
        SELECT r.workflow_id AS "workflowId", r.workflow_version AS "workflowVersion", r.input,
          COALESCE(jsonb_object_agg(s.key, jsonb_build_object('output', s.output, 'status', s.status))
          FILTER (WHERE s.status IN ('succeeded', 'failed', 'skipped')), '{}'::jsonb) AS steps,
          COALESCE(sum(s.output_bytes), 0)::int AS "dataBytes",
          ${sealedSecretsColumn(workspaceId)} AS secrets
        FROM runs r LEFT JOIN run_steps s ON s.run_id = r.id WHERE r.id = ${runId} AND r.workspace_id = ${workspaceId} GROUP BY r.id`,
      );
      if (!row) throw new Error(`run ${runId} not found`);
      return row;
    },

    /** A step starts an attempt; the run's first step also moves the run to running. */
    async startStep(runId: string, stepKey: string, attempt: number): Promise<void> {
      const [{ started }] = await rowsOf<{ started: number }>(
        hot,
        Prisma.sql`
        WITH run AS (UPDATE runs SET status = 'running', started_at = COALESCE(started_at, now())
                      WHERE id = ${runId} AND status = 'queued' RETURNING 1),
        step AS (UPDATE run_steps SET status = 'running', attempts = GREATEST(attempts, ${attempt}),
               started_at = COALESCE(started_at, now()), error = NULL
         WHERE run_id = ${runId} AND key = ${stepKey} AND status IN ('pending', 'running') AND attempts <= ${attempt})
        SELECT count(*)::int AS started FROM run`,
      );
      noteStart(started);
    },

    async stepAttemptFailed(runId: string, stepKey: string, error: StepError, attempt: number): Promise<void> {
      await prisma.$executeRaw`UPDATE run_steps SET error = ${jsonb(error)}::jsonb
        WHERE run_id = ${runId} AND key = ${stepKey} AND status IN ('pending', 'running') AND attempts <= ${attempt}`;
    },

    /**
     * A step ends (or is skipped): one statement, which also moves a still-queued run to
     * running. Returns the step as expressions now see it (with `readBack`, its output as
     * stored), or null when the write was fenced off (an earlier attempt settled the step).
     */
    async finishStep(runId: string, stepKey: string, w: StepWrite): Promise<StepsData[string] | null> {
      const written = await writeStep(hot, runId, stepKey, w);
      noteStepWritten(w, written);
      return written.step;
    },

    /**
     * A local step's end in one transaction (one commit, not two): the step's write (finishStep's)
     * and, with `ending` (the run's last step), the run's ending (finishRun's). An ending that needs
     * nothing of the step as stored goes out with the write, in one round trip; one that `ending`
     * works out from the step as stored (an output expression) waits for the write, and is not
     * made when the write was fenced off (`step` null: an earlier attempt settled the step).
     */
    async settleLocalStep(
      runId: string,
      stepKey: string,
      w: StepWrite,
      ending: AlongWithStep,
    ): Promise<{ step: StepsData[string] | null; end?: AfterCommit & { status: TerminalRunStatus } }> {
      const out = await endingExclusivelyIfAsked((exclusive) =>
        inTransaction(hot, async (tx) => {
          const { written, ending: worked, ended } = await writeAndEnd(tx, runId, stepKey, w, ending);
          if (!worked || !ended) return { written };
          return { written, end: await announceEnd(tx, worked, ended, exclusive) };
        }),
      );
      noteStepWritten(w, out.written);
      if (out.end?.settled) opts.observer?.runSettled(out.end.done.status);
      return { step: out.written.step, end: out.end?.done };
    },

    /** Steps passed over by a condition's jump. */
    async skipSteps(runId: string, stepKeys: string[]): Promise<void> {
      await prisma.runStep.updateMany({ where: { runId, key: { in: stepKeys }, status: 'pending' }, data: { status: 'skipped' } });
    },

    /**
     * Pauses the run for a person, in one transaction: the review, the step and the run wait,
     * the run's slot goes to the next in line, `run.waiting_for_review` is recorded, and the run
     * is sent to its waiting gateway, if any (readSettled).
     */
    async openReview(
      args: { runId: string; workspaceId: string; stepKey: string; grantKey: string },
      review: { id: string; title: string; instructions: string; assignees: string[]; data: unknown; expiresAt: Date },
    ): Promise<AfterCommit> {
      const { runId, workspaceId, stepKey } = args;
      let started = 0;
      const done = await prisma.$transaction(async (tx) => {
        await tx.review.createMany({
          data: [
            { ...review, runId, stepKey, data: review.data === null || review.data === undefined ? undefined : (review.data as object) },
          ],
          skipDuplicates: true,
        });
        await tx.$executeRaw`UPDATE run_steps SET status = 'waiting_for_review', attempts = GREATEST(attempts, 1),
          started_at = COALESCE(started_at, now()) WHERE run_id = ${runId} AND key = ${stepKey}`;
        // A review as the run's first step starts the run, as a first step's write does.
        started = await tx.$executeRaw`UPDATE runs SET status = 'waiting_for_review', started_at = COALESCE(started_at, now())
          WHERE id = ${runId} AND status = 'queued'`;
        await tx.$executeRaw`UPDATE runs SET status = 'waiting_for_review' WHERE id = ${runId} AND status = 'running'`;
        const run = await readSettled(tx, runId, workspaceId);
        const deliveries = await publishIn(
          tx,
          workspaceId,
          'run.waiting_for_review',
          `${review.id}:run.waiting_for_review`,
          runEventData(run),
        );
        // Last: the workspace's slot lock is held from here to the commit.
        const granted = await releaseSlots(tx, { workspaceId, runIds: [runId], grantKey: args.grantKey });
        return { granted, deliveries };
      });
      noteStart(started);
      return done;
    },

    /**
     * Records the first decision (or the expiry), puts the run back to running and records
     * `review.decided`, in one transaction. Returns when the decision was taken.
     */
    async resolveReview(
      args: { runId: string; workspaceId: string; reviewId: string },
      d: {
        status: 'approved' | 'rejected' | 'expired';
        decision: string;
        decidedBy: string | null;
        decidedVia?: DecidedVia | null;
        comment: string | null;
      },
    ): Promise<{ decidedAt: Date; deliveries: DeliveryRef[] }> {
      const { runId, workspaceId, reviewId } = args;
      // An expiry is the timer's decision, whichever version of the workflow ran it.
      const via = d.status === 'expired' ? DECIDED_VIA_TIMEOUT : (d.decidedVia ?? null);
      return prisma.$transaction(async (tx) => {
        await tx.review.updateMany({
          where: { id: reviewId, status: 'pending' },
          data: {
            status: d.status,
            decision: d.decision,
            decidedBy: d.decidedBy,
            decidedViaType: via?.type ?? null,
            decidedViaId: via?.id ?? null,
            comment: d.comment,
            decidedAt: new Date(),
          },
        });
        await tx.$executeRaw`UPDATE runs SET status = 'running' WHERE id = ${runId} AND status = 'waiting_for_review'`;
        const row = await tx.review.findUniqueOrThrow({ where: { id: reviewId }, select: { decidedAt: true } });
        const deliveries = await publishReviewIn(tx, workspaceId, 'review.decided', `${reviewId}:review.decided`, reviewId);
        return { decidedAt: row.decidedAt!, deliveries };
      });
    },

    /**
     * A reset (from the Temporal UI) re-runs the run from step `fromStep`: the run is open
     * again and every step from there back to pending, with the abandoned branch's outputs,
     * errors and reviews gone, so the API follows the new branch.
     */
    async reopenRun(runId: string, fromStep: number): Promise<void> {
      await prisma.$transaction([
        prisma.$executeRaw`DELETE FROM reviews v USING run_steps s
          WHERE v.run_id = ${runId} AND s.run_id = v.run_id AND s.key = v.step_key AND s.position >= ${fromStep}`,
        prisma.$executeRaw`UPDATE run_steps SET status = 'pending', attempts = 0, started_at = NULL, finished_at = NULL,
          output = NULL, output_bytes = 0, error = NULL WHERE run_id = ${runId} AND position >= ${fromStep}`,
        prisma.$executeRaw`UPDATE runs SET status = 'running', output = NULL, error = NULL, finished_at = NULL,
          started_at = COALESCE(started_at, now()) WHERE id = ${runId}`,
      ]);
    },

    /**
     * Ends the run in one transaction: its final status, output and error (the first final
     * status stands, e.g. a cancellation that won a race), its unfinished steps, its slot
     * handed to the next in line, and the `run.<status>` event with its deliveries.
     */
    async finishRun(f: FinishRun): Promise<AfterCommit & { status: TerminalRunStatus }> {
      const { done, settled } = await endingExclusivelyIfAsked((exclusive) =>
        inTransaction(hot, async (tx) => announceEnd(tx, f, await endRun(tx, f), exclusive)),
      );
      if (settled) opts.observer?.runSettled(done.status);
      return done;
    },
  };
}

export type RunStore = ReturnType<typeof createRunStore>;
