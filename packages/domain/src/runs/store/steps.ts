import { inTransaction, Prisma, rowsOf } from '@svc/db';
import type { SqlSource } from '@svc/db';
import { sealedSecretsColumn } from '../../secrets/secrets';
import { jsonb, noteStart } from './context';
import type { StoreContext } from './context';
import type { RunData, StepError, StepsData, StepWrite } from './types';

/** What a step's write did: moved the run out of `queued` (1), and the step as written (null: fenced off). */
export interface WrittenStep {
  started: number;
  type: string | null;
  seconds: number | null;
  step: StepsData[string] | null;
}

/**
 * A step's end (or skip) in one statement, on the store's connections or in the caller's
 * transaction; it also moves a still-queued run to running. Fenced: a settled step is never
 * written again, and an attempt never overwrites what a later attempt wrote.
 */
export async function writeStep(db: SqlSource, runId: string, stepKey: string, w: StepWrite): Promise<WrittenStep> {
  const output = jsonb(w.output);
  const [row] = await rowsOf<{ started: number; type: string | null; seconds: number | null; output: unknown }>(
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
export function noteStepWritten(ctx: StoreContext, w: StepWrite, { started, type, seconds }: WrittenStep): void {
  noteStart(ctx, started);
  if ((w.status === 'succeeded' || w.status === 'failed') && type && seconds !== null) ctx.observer?.stepFinished(type, seconds);
}

/** A run's steps: what they read, their attempts and their ends. */
export function createStepStore(ctx: StoreContext) {
  const { db } = ctx;
  return {
    /**
     * What a run's expressions see, in one query: its input, its settled steps' outputs (and
     * their size together), and its workspace's secrets, still sealed (the caller opens those
     * its definition reads, openRunSecrets).
     */
    async loadData(runId: string, workspaceId: string): Promise<RunData> {
      const [row] = await rowsOf<RunData>(
        db,
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
        db,
        Prisma.sql`
        WITH run AS (UPDATE runs SET status = 'running', started_at = COALESCE(started_at, now())
                      WHERE id = ${runId} AND status = 'queued' RETURNING 1),
        step AS (UPDATE run_steps SET status = 'running', attempts = GREATEST(attempts, ${attempt}),
               started_at = COALESCE(started_at, now()), error = NULL
         WHERE run_id = ${runId} AND key = ${stepKey} AND status IN ('pending', 'running') AND attempts <= ${attempt})
        SELECT count(*)::int AS started FROM run`,
      );
      noteStart(ctx, started);
    },

    /** A retried attempt's failure, shown on the step until its next attempt starts. */
    async stepAttemptFailed(runId: string, stepKey: string, error: StepError, attempt: number): Promise<void> {
      await rowsOf(
        db,
        Prisma.sql`UPDATE run_steps SET error = ${jsonb(error)}::jsonb
          WHERE run_id = ${runId} AND key = ${stepKey} AND status IN ('pending', 'running') AND attempts <= ${attempt}`,
      );
    },

    /**
     * A step ends (or is skipped). Returns the step as expressions now see it (with `readBack`,
     * its output as stored), or null when the write was fenced off (an earlier attempt settled it).
     */
    async finishStep(runId: string, stepKey: string, w: StepWrite): Promise<StepsData[string] | null> {
      const written = await writeStep(db, runId, stepKey, w);
      noteStepWritten(ctx, w, written);
      return written.step;
    },

    /** Steps passed over by a condition's jump. */
    async skipSteps(runId: string, stepKeys: string[]): Promise<void> {
      await rowsOf(
        db,
        Prisma.sql`UPDATE run_steps SET status = 'skipped' WHERE run_id = ${runId} AND key = ANY(${stepKeys}::text[]) AND status = 'pending'`,
      );
    },

    /**
     * A reset (from the Temporal UI) re-runs the run from step `fromStep`: the run is open
     * again and every step from there back to pending, with the abandoned branch's outputs,
     * errors and reviews gone, so the API follows the new branch.
     */
    async reopenRun(runId: string, fromStep: number): Promise<void> {
      await inTransaction(db, async (tx) => {
        await rowsOf(
          tx,
          Prisma.sql`DELETE FROM reviews v USING run_steps s
            WHERE v.run_id = ${runId} AND s.run_id = v.run_id AND s.key = v.step_key AND s.position >= ${fromStep}`,
        );
        await rowsOf(
          tx,
          Prisma.sql`UPDATE run_steps SET status = 'pending', attempts = 0, started_at = NULL, finished_at = NULL,
            output = NULL, output_bytes = 0, error = NULL WHERE run_id = ${runId} AND position >= ${fromStep}`,
        );
        await rowsOf(
          tx,
          Prisma.sql`UPDATE runs SET status = 'running', output = NULL, error = NULL, finished_at = NULL,
            started_at = COALESCE(started_at, now()) WHERE id = ${runId}`,
        );
      });
    },
  };
}
